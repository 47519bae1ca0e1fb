// The payment card's script, inline after the ext-apps SDK's App (McpApps, app.ts). It shows the
// card a tool result carries (_meta["payment-service/card"], made by the service's renderer), in
// the host's theme; keeps it live by calling wait_for_payment through the host while the card is
// in sight (one wait at a time; while nothing changes, a new one no sooner than the wait's bound
// after the last began); and wires its buttons: copy, open a page in the browser (the host's
// openLink, never inside the frame), and the tools the card names (drawn only when the credential
// may call them, shown only when the host passes tool calls on). It requests nothing itself.

const { App, applyDocumentTheme, applyHostStyleVariables, applyHostFonts } = McpApps;

const CARD_KEY = 'payment-service/card';
const WAIT_TOOL = 'wait_for_payment';
/** The wait tool's bound (MAX_WAIT_SECONDS): while nothing changes, waits begin no closer together than this. */
const WAIT_BOUND_MS = 25_000;
/**
 * A wait let go out of sight is asked again, once in sight, no sooner than this after it began; a
 * second let go in a row waits the whole bound (a card flickering at the edge of sight).
 */
const LET_GO_GAP_MS = 5_000;
/** After a failed wait: the bound, then doubling, at most two minutes. */
const RETRY_MAX_MS = 120_000;
/** The service refusing the credential itself for good: a revoked key, a disconnected agent, a suspended business. */
const REFUSED_CREDENTIAL = ['invalid_api_key', 'agent_disconnected', 'suspended'];
/** Refusals that asking again will not change: the card stops updating and says so. */
const FINAL_REFUSALS = new Set(['not_found', 'insufficient_scope', 'invalid_request', 'invalid_status', ...REFUSED_CREDENTIAL]);
/**
 * A call that failed before any tool answered, and will fail the same way again: the server no
 * longer lists the tool (the credential lost the scope: JSON-RPC's method not found, or invalid
 * params for a tool or arguments it does not take), or it refused the credential (where the host
 * passes the service's error on). Not an expired token or a scope to step up to: hosts renew
 * those. By the error's code, or by its words from a host that passes on only the message.
 */
const FINAL_PROTOCOL_CODES = new Set([-32601, -32602]);
const FINAL_FAILURE_WORDS = new RegExp(`\\bMethod not found\\b|\\bTool \\S+ (not found|disabled)\\b|"code"\\s*:\\s*"(${REFUSED_CREDENTIAL.join('|')})"`);
const finalFailure = (error) => FINAL_PROTOCOL_CODES.has(error?.code) || FINAL_FAILURE_WORDS.test(String(error?.message ?? error ?? ''));
/** How long the card waits for the host to send the tool's result before saying it has none. */
const NO_RESULT_MS = 10_000;

const root = document.getElementById('card');
const announce = document.getElementById('announce');
const app = new App({ name: 'payment-card', version: '1.0.0' }, {}, { autoResize: true });

/** The card shown: its html and what to wait on. */
let shown = null;
/** Bumped by each new card and by teardown: a loop of an older card stops. */
let generation = 0;
let tornDown = false;
let inView = true;
/** The wait in flight: a new card, teardown or the card going out of sight lets it go (the host tells the service). */
let inflight = null;
/** When the last wait began, and how long after that the next may begin (the bound while nothing changed). */
let lastWait = { began: -Infinity, gap: 0 };
/** Waits let go in a row (out of sight before they answered). */
let letGoInRow = 0;
/** Resolves the loop's pause while the card is out of sight. */
let wakeVisible = null;
let gotResult = false;

/** Whether the host passes the card's tool calls on to the service. */
const hostCallsTools = () => app.getHostCapabilities()?.serverTools !== undefined;

function applyContext(context) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

/** What has focus in the card, as a selector that finds the same control in the next card. */
function focusedControl() {
  const active = document.activeElement;
  if (!active || !root.contains(active) || active === root) return null;
  for (const name of ['data-copy', 'data-tool']) {
    if (active.hasAttribute(name)) return `[${name}="${CSS.escape(active.getAttribute(name))}"]`;
  }
  return active.matches('a[href]') ? `a[href="${CSS.escape(active.getAttribute('href'))}"]` : '#card-title';
}

/**
 * What a card may hold: the elements and attributes the service's cards are made of (card.ts and
 * the components it uses), links only to the web or mail. Anything else (a script, a frame, a
 * style, a picture, SVG's animations and references, a handler, a srcset) is not a card's.
 */
const HTML_ELEMENTS = new Set(['article', 'header', 'section', 'div', 'p', 'span', 'strong', 'em', 'h1', 'h2', 'h3', 'dl', 'dt', 'dd',
  'ul', 'ol', 'li', 'br', 'code', 'data', 'time', 'button', 'a']);
/** SVG's own elements only as a card draws them (its QR code): an SVG <a> is not a card's link. */
const SVG_ELEMENTS = new Set(['svg', 'path']);
const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
const CARD_ATTRIBUTES = new Set(['class', 'id', 'role', 'hidden', 'title', 'datetime', 'value', 'type', 'href', 'viewbox', 'd']);
const SAFE_URL = /^(https?:|mailto:)/i;

/**
 * The markup with only that left. The service's renderer already escapes every value and allows
 * no handler, script or unsafe URL: this is the second guard, should it ever let one by.
 */
function inert(content) {
  for (const element of [...content.querySelectorAll('*')]) {
    if (!(element.namespaceURI === SVG_NAMESPACE ? SVG_ELEMENTS : HTML_ELEMENTS).has(element.localName)) {
      element.remove();
      continue;
    }
    for (const { name, value } of [...element.attributes]) {
      const lower = name.toLowerCase();
      const kept = lower.startsWith('data-') || lower.startsWith('aria-') || (CARD_ATTRIBUTES.has(lower) && (lower !== 'href' || SAFE_URL.test(value)));
      if (!kept) element.removeAttribute(name);
    }
  }
  return content;
}

/** Puts the service's markup in place (made inert), keeping focus where the person was. */
function place(markup) {
  const focus = focusedControl();
  const template = document.createElement('template');
  template.innerHTML = markup;
  root.replaceChildren(inert(template.content));
  const calls = hostCallsTools();
  for (const button of root.querySelectorAll('[data-copy]')) button.hidden = false;
  for (const button of root.querySelectorAll('[data-tool]')) button.hidden = !calls;
  if (!calls) root.querySelector('.card-controls')?.remove();
  if (focus) {
    const again = root.querySelector(focus) ?? root.querySelector('#card-title');
    if (again?.id === 'card-title') again.tabIndex = -1;
    again?.focus();
  }
}

function liveNote(text) {
  const note = root.querySelector('[data-live]');
  if (!note) return;
  note.textContent = text;
  note.hidden = text === '';
}

/** Says something beside the card's buttons (a question, a refusal), and to screen readers. */
function say(text, refused) {
  const slot = root.querySelector('[data-said]');
  if (!slot) return;
  slot.textContent = text;
  slot.classList.toggle('refused', refused);
}

const sameWait = (one, other) => one?.id === other?.id && one?.status === other?.status;

/** Shows a card; a new status is said to screen readers. The card shown, sent again (a host may), changes nothing. */
function show(card) {
  if (!card || typeof card.html !== 'string') return;
  if (shown !== null && shown.html === card.html && sameWait(shown.wait, card.wait)) return;
  letGoInRow = 0;
  const before = root.querySelector('.card-status .status-badge')?.textContent ?? null;
  if (shown?.html !== card.html) place(card.html);
  shown = card;
  const status = root.querySelector('.card-status .status-badge')?.textContent ?? null;
  if (before !== null && status !== null && status !== before) announce.textContent = `Status: ${status}`;
  stopWaiting();
  if (card.wait && hostCallsTools()) keepLive(generation);
}

/** A card of our own making, of text only (a heading when given, then paragraphs): no value in it can be markup. */
function showText(title, lines) {
  const article = document.createElement('article');
  article.className = 'payment-card';
  if (title) {
    const heading = document.createElement('h1');
    heading.textContent = title;
    article.append(heading);
  }
  for (const line of lines) {
    const paragraph = document.createElement('p');
    paragraph.textContent = line;
    if (title) paragraph.className = 'muted';
    article.append(paragraph);
  }
  root.replaceChildren(article);
  shown = null;
  stopWaiting();
}

/** A result without a card (a host that kept our _meta from us): its facts, as text. */
function showPlain(result) {
  const facts = result?.structuredContent ?? {};
  const lines = [
    facts.description ?? facts.name,
    facts.amount !== undefined && facts.currency !== undefined ? `${facts.amount} ${facts.currency}` : undefined,
    facts.status,
    facts.url,
  ].filter((line) => typeof line === 'string' && line !== '');
  showText(null, lines.length > 0 ? lines : ['The answer is in the conversation.']);
}

function showResult(result) {
  gotResult = true;
  const card = result?._meta?.[CARD_KEY];
  if (card) show(card);
  else showPlain(result);
}

/** Ends the loop that keeps the shown card live, and its wait in flight. */
function stopWaiting() {
  generation += 1;
  inflight?.abort();
  inflight = null;
  wakeUp();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const visible = () => !document.hidden && inView;
const whenVisible = () => new Promise((resolve) => { wakeVisible = resolve; });

function wakeUp() {
  const wake = wakeVisible;
  wakeVisible = null;
  wake?.();
}

/** The error code of a tool's refusal ({"error":{"code":…,"message":…}}), and its message. */
function refusalOf(result) {
  const text = (result?.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n');
  try {
    const { error } = JSON.parse(text);
    return { code: error?.code ?? null, message: error?.message ?? text };
  } catch {
    return { code: null, message: text };
  }
}

/** Waits on the shown payment through the host until it stops changing, the card changes or the app goes. */
async function keepLive(mine) {
  let failures = 0;
  while (mine === generation && !tornDown && shown?.wait) {
    if (!visible()) {
      liveNote('');
      await whenVisible();
      continue;
    }
    const early = lastWait.began + lastWait.gap - performance.now();
    if (early > 0) {
      await sleep(early);
      continue;
    }
    const { id, status } = shown.wait;
    liveNote('Updates here when it changes.');
    const controller = new AbortController();
    inflight = controller;
    lastWait = { began: performance.now(), gap: LET_GO_GAP_MS };
    let result;
    let failure;
    try {
      result = await app.callServerTool({ name: WAIT_TOOL, arguments: { id, status } }, { signal: controller.signal });
    } catch (error) {
      result = undefined;
      failure = error;
    }
    if (mine !== generation || tornDown) return;
    inflight = null;
    // Let go out of sight: the next starts when the card is seen again (after the whole bound if
    // the one before was let go too).
    if (controller.signal.aborted) {
      letGoInRow += 1;
      if (letGoInRow > 1) lastWait.gap = WAIT_BOUND_MS;
      continue;
    }
    letGoInRow = 0;
    if (failure !== undefined && finalFailure(failure)) {
      liveNote('Not updating: this connection may no longer follow the payment.');
      return;
    }
    const card = result?._meta?.[CARD_KEY];
    if (result && !result.isError && !card) {
      // The host keeps our _meta from us: nothing to show, so nothing to wait for.
      liveNote('');
      return;
    }
    if (!card || result.isError) {
      const refusal = result ? refusalOf(result) : { code: null, message: '' };
      if (refusal.code !== null && FINAL_REFUSALS.has(refusal.code)) {
        liveNote(`Not updating: ${refusal.message}`);
        return;
      }
      failures += 1;
      const delay = Math.min(WAIT_BOUND_MS * 2 ** (failures - 1), RETRY_MAX_MS);
      liveNote(`Not updating right now; trying again in ${Math.round(delay / 1000)} seconds.`);
      await sleep(delay);
      continue;
    }
    failures = 0;
    if (card.wait?.status === status) {
      // Unchanged: the next wait begins no sooner than the bound after this one did.
      if (card.html !== shown.html) place(card.html);
      shown = card;
      lastWait.gap = WAIT_BOUND_MS;
      continue;
    }
    lastWait.gap = 0;
    show(card);
    if (!card.wait) liveNote('');
    return;
  }
}

async function copy(button) {
  const target = document.getElementById(button.dataset.copy);
  const status = document.getElementById(`${button.dataset.copy}-status`);
  if (!target) return;
  let copied = false;
  try {
    await navigator.clipboard.writeText(target.textContent);
    copied = true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(target);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    copied = document.execCommand('copy');
  }
  if (status) status.textContent = copied ? 'Copied' : 'Selected: copy it with your keyboard';
}

async function openLink(link) {
  const url = link.getAttribute('href');
  const answer = await app.openLink({ url }).catch(() => ({ isError: true }));
  if (answer?.isError) {
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent = `This host did not open it. The address: ${url}`;
    link.closest('p')?.after(note);
  }
}

let busy = false;

async function callTool(button) {
  if (busy) return;
  // A change that cannot be undone is asked about first: the button then says what it will do.
  if (button.dataset.confirm && button.dataset.confirming !== 'yes') {
    button.dataset.confirming = 'yes';
    button.textContent = button.dataset.confirmLabel ?? button.textContent;
    say(button.dataset.confirm, false);
    return;
  }
  let args;
  try {
    args = JSON.parse(button.dataset.arguments ?? '{}');
  } catch {
    return;
  }
  busy = true;
  root.setAttribute('aria-busy', 'true');
  say('', false);
  const result = await app.callServerTool({ name: button.dataset.tool, arguments: args }, { timeout: 120_000 })
    .catch((error) => ({ isError: true, content: [{ type: 'text', text: String(error?.message ?? error) }] }));
  busy = false;
  root.removeAttribute('aria-busy');
  const card = result?._meta?.[CARD_KEY];
  // A refusal is said beside the buttons, the card staying as it is; an approval's card takes its place.
  if (result?.isError && card?.kind !== 'approval') {
    say(refusalOf(result).message || 'The service did not do it.', true);
    return;
  }
  if (card) show(card);
  else if (!result?.isError) say('Done.', false);
}

root.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('[data-copy], [data-tool], a[href]') : null;
  if (!target) return;
  if (target.matches('a[href]')) {
    event.preventDefault();
    openLink(target);
  } else if (target.matches('[data-copy]')) {
    copy(target);
  } else {
    callTool(target);
  }
});

/** Out of sight (the host's tab hidden, the card scrolled away or folded): no wait is kept open; back in sight, one starts. */
function sightChanged() {
  if (visible()) {
    wakeUp();
  } else {
    inflight?.abort();
    inflight = null;
  }
}
document.addEventListener('visibilitychange', sightChanged);
new IntersectionObserver((entries) => {
  inView = entries.some((entry) => entry.isIntersecting);
  sightChanged();
}).observe(root);

app.ontoolresult = (result) => showResult(result);
app.ontoolcancelled = () => showText('Not done', ['The tool was cancelled before it answered.']);
app.onhostcontextchanged = (context) => applyContext(context);
app.onteardown = async () => {
  tornDown = true;
  stopWaiting();
  return {};
};

await app.connect();
applyContext(app.getHostContext());
setTimeout(() => {
  if (!gotResult && !tornDown) showText('No payment to show', ['The host sent no answer to show here; the conversation has it.']);
}, NO_RESULT_MS);
