// The payment card's script, inline after the ext-apps SDK's App (McpApps, app.ts). It shows the
// card a tool result carries (_meta["payment-service/card"], made by the service's renderer), in
// the host's theme; keeps it live by calling wait_for_payment through the host while the card is
// in view (one wait at a time, each up to the wait's bound); and wires its buttons: copy, open a
// page in the browser (the host's openLink, never inside the frame), and the tools the card names
// (drawn only when the credential may call them). It requests nothing itself: no fetch, no image.

const { App, applyDocumentTheme, applyHostStyleVariables, applyHostFonts } = McpApps;

const CARD_KEY = 'payment-service/card';
const WAIT_TOOL = 'wait_for_payment';
/** The wait tool's bound (MAX_WAIT_SECONDS): an unchanged answer sooner than this is not asked again sooner. */
const WAIT_BOUND_MS = 25_000;
/** After a failed wait: 5 s, doubling, at most a minute. */
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 60_000;

const root = document.getElementById('card');
const announce = document.getElementById('announce');
const app = new App({ name: 'payment-card', version: '1.0.0' }, {}, { autoResize: true });

/** The card shown: its html and what to wait on. */
let shown = null;
/** Bumped by each new card and by teardown: a wait that started before answers into nothing. */
let generation = 0;
let tornDown = false;
let inView = true;
/** The wait in flight: a new card or teardown cancels it (the host tells the service). */
let inflight = null;
/** Resolves the loop's pause while the card is out of sight. */
let wakeVisible = null;

function applyContext(context) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

/** Markup the service rendered, placed without anything that could run (its renderer allows none; this holds anyway). */
function place(markup) {
  const template = document.createElement('template');
  template.innerHTML = markup;
  for (const element of template.content.querySelectorAll('*')) {
    if (element.localName === 'script' || element.localName === 'iframe' || element.localName === 'object' || element.localName === 'embed') {
      element.remove();
      continue;
    }
    for (const attribute of [...element.attributes]) {
      if (attribute.name.startsWith('on')) element.removeAttribute(attribute.name);
    }
  }
  root.replaceChildren(template.content);
  for (const button of root.querySelectorAll('[data-copy], [data-tool]')) button.hidden = false;
}

function liveNote(text) {
  const note = root.querySelector('[data-live]');
  if (!note) return;
  note.textContent = text;
  note.hidden = text === '';
}

/** Shows a card; a new status is said to screen readers. */
function show(card) {
  if (!card || typeof card.html !== 'string') return;
  const before = shown?.wait?.status ?? null;
  if (shown?.html !== card.html) place(card.html);
  shown = card;
  const status = root.querySelector('.card-status .status-badge');
  if (before !== null && status && card.wait?.status !== before) announce.textContent = `Status: ${status.textContent}`;
  stopWaiting();
  if (card.wait) keepLive(generation);
}

/** A result without a card (a host that kept _meta from us): its text, as text. */
function showPlain(result) {
  const text = (result?.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n');
  const article = document.createElement('article');
  article.className = 'payment-card';
  const paragraph = document.createElement('p');
  paragraph.textContent = text || 'The answer is in the conversation.';
  article.append(paragraph);
  root.replaceChildren(article);
  shown = null;
  stopWaiting();
}

/** Ends the loop that keeps the shown card live, and its wait in flight. */
function stopWaiting() {
  generation += 1;
  inflight?.abort();
  inflight = null;
  wakeUp();
}

function showResult(result) {
  const card = result?._meta?.[CARD_KEY];
  if (card) show(card);
  else showPlain(result);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const visible = () => !document.hidden && inView;
const whenVisible = () => new Promise((resolve) => { wakeVisible = resolve; });

function wakeUp() {
  const wake = wakeVisible;
  wakeVisible = null;
  wake?.();
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
    const { id, status } = shown.wait;
    liveNote('Updates here when it changes.');
    const started = Date.now();
    let result;
    const controller = new AbortController();
    inflight = controller;
    try {
      result = await app.callServerTool({ name: WAIT_TOOL, arguments: { id, status } }, { signal: controller.signal });
    } catch {
      result = undefined;
    }
    if (mine !== generation || tornDown) return;
    inflight = null;
    // Hidden meanwhile: the wait was let go (see below); the next starts when the card is seen again.
    if (controller.signal.aborted) continue;
    const card = result && !result.isError ? result._meta?.[CARD_KEY] : undefined;
    if (!card) {
      failures += 1;
      const delay = Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_MAX_MS);
      liveNote(`Not updating right now; trying again in ${Math.round(delay / 1000)} seconds.`);
      await sleep(delay);
      continue;
    }
    failures = 0;
    if (card.wait?.status === status) {
      // Unchanged: the next wait starts no sooner than the bound after this one did.
      if (card.html !== shown.html) place(card.html);
      shown = card;
      const early = WAIT_BOUND_MS - (Date.now() - started);
      if (early > 0) await sleep(early);
      continue;
    }
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
  const answer = await app.openLink({ url: link.href }).catch(() => ({ isError: true }));
  if (answer?.isError) {
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent = `This host did not open it. The address: ${link.href}`;
    link.closest('p')?.after(note);
  }
}

async function callTool(button) {
  let args;
  try {
    args = JSON.parse(button.dataset.arguments ?? '{}');
  } catch {
    return;
  }
  const buttons = [...root.querySelectorAll('[data-tool]')];
  for (const each of buttons) each.disabled = true;
  const result = await app.callServerTool({ name: button.dataset.tool, arguments: args }).catch((error) => ({ isError: true, content: [{ type: 'text', text: String(error?.message ?? error) }] }));
  const card = result?._meta?.[CARD_KEY];
  // A refusal is said beside the buttons, the card staying as it is; an approval's card takes its place.
  if (result?.isError && card?.kind !== 'approval') {
    for (const each of buttons) each.disabled = false;
    const place = root.querySelector('[data-refusal]');
    if (place) place.textContent = refusalText(result);
    return;
  }
  showResult(result);
}

/** The message of a tool's refusal ({"error":{"message":…}}), or its text as it is. */
function refusalText(result) {
  const text = (result?.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n');
  try {
    return JSON.parse(text).error?.message ?? text;
  } catch {
    return text;
  }
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
app.onhostcontextchanged = (context) => applyContext(context);
app.onteardown = async () => {
  tornDown = true;
  stopWaiting();
  return {};
};

await app.connect();
applyContext(app.getHostContext());
