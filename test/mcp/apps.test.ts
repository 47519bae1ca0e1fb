import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import jsQR from 'jsqr';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_META_KEY, CARD_TOOLS, CARD_URI } from '../../src/mcp/apps/app.ts';
import { axeFindings } from '../support/accessibility.ts';
import { connectAgent } from '../support/agents.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp, type TestBusiness } from '../support/harness.ts';
import { PAGE_ATTACKS } from '../support/hostile.ts';
import { legacyClient, legacySessionId } from '../../src/mcp/legacy-sessions.ts';
import { mountApp, openedLinks, refusedByPolicy, sendToolCancelled, sendToolResult, setHostTheme, startAppHost, unmountApp, type AppHost } from '../support/mcp-app-host.ts';

// The payment card (MCP Apps) as a chat host shows it: negotiated by a client that declares the
// extension and by no other; then in Chromium, inside the ext-apps SDK's own host side (AppBridge,
// unchanged) in a sandboxed iframe, fed by a real MCP client against the running service: what it
// shows, kept live through wait_for_payment, in both themes and at phone width, with hostile
// values inert, and only the controls the credential may use.
// SCREENSHOTS=1 also photographs its states into docs/screenshots/ (docs/connect-an-agent.md shows them).

const APPS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const SHOTS = process.env.SCREENSHOTS === '1' ? new URL('../../docs/screenshots/', import.meta.url) : undefined;

type ToolAnswer = Awaited<ReturnType<Client['callTool']>>;

let t: TestApp;
let biz: TestBusiness;
let full: string;
let readOnly: string;
let approving: string;
const clients: Client[] = [];

async function connect(token: string, capabilities: Record<string, unknown> = APPS, era: 'modern' | 'legacy' = 'modern'): Promise<Client> {
  const client = new Client({ name: 'chat-host', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> => client.callTool({ name, arguments: args });
const cardOf = (answer: ToolAnswer) => (answer._meta as Record<string, { html: string; wait: unknown } | undefined> | undefined)?.[CARD_META_KEY];

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  biz = await t.business({ name: 'Tea & Co' });
  const resource = `${t.config.baseUrl}/mcp`;
  full = (await connectAgent(t, biz, { resource })).token;
  readOnly = (await connectAgent(t, biz, { resource, access: 'read_only' })).token;
  approving = (await connectAgent(t, biz, { resource })).token;
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await t?.close();
});

describe('negotiation', () => {
  it('offers the card to a client that declares MCP Apps: tools name it, the resource serves it with its CSP, the server declares the extension', async () => {
    const client = await connect(full);
    expect(client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION_ID]: {} });
    const { tools } = await client.listTools();
    for (const tool of tools) {
      if (CARD_TOOLS.has(tool.name)) {
        expect(tool._meta, tool.name).toEqual({ ui: { resourceUri: CARD_URI, visibility: ['model', 'app'] }, 'ui/resourceUri': CARD_URI });
      } else {
        expect(tool._meta, tool.name).toBeUndefined();
      }
    }
    expect(tools.filter((tool) => CARD_TOOLS.has(tool.name)).map((tool) => tool.name).sort()).toEqual([...CARD_TOOLS].sort());
    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === CARD_URI)).toMatchObject({ name: 'Payment card', mimeType: RESOURCE_MIME_TYPE });
    const read = await client.readResource({ uri: CARD_URI });
    const [content] = read.contents as Array<{ uri: string; mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]>; permissions: unknown } } }>;
    expect(content!.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(content!._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
    expect(content!._meta.ui.permissions).toEqual({ clipboardWrite: {} });
    // Everything inline: no address to load from, no src or href to another document.
    expect(content!.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  });

  it('stays within its size budget: under 600 KB, 160 KB gzipped, of which our own part under 56 KB', async () => {
    const { gzipSync } = await import('node:zlib');
    const { readFileSync } = await import('node:fs');
    const client = await connect(full);
    const text = ((await client.readResource({ uri: CARD_URI })).contents[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThan(600 * 1024);
    expect(gzipSync(text).length).toBeLessThan(160 * 1024);
    const ours = ['card-app.js', 'card.css'].map((name) => readFileSync(new URL(`../../src/mcp/apps/${name}`, import.meta.url)).length).reduce((a, b) => a + b, 0);
    const stylesheet = (await import('../../src/ui/index.ts')).stylesheetText().length;
    expect(ours + stylesheet).toBeLessThan(56 * 1024);
  });

  it.each(['modern', 'legacy'] as const)('gives a client without the extension the same tools, resources and results as before: no card, no ui resource (%s era)', async (era) => {
    const plain = await connect(full, {}, era);
    const apps = await connect(full, APPS, era);
    expect(plain.getServerCapabilities()?.extensions).toBeUndefined();
    const { tools } = await plain.listTools();
    expect(tools.every((tool) => tool._meta === undefined)).toBe(true);
    expect((await plain.listResources()).resources.map((resource) => resource.uri)).not.toContain(CARD_URI);
    await expect(plain.readResource({ uri: CARD_URI })).rejects.toThrow();
    const link = await call(plain, 'create_payment_link', { amount: '12.00', currency: 'USD', description: 'Same either way' });
    // Nothing of ours in a result's _meta (2026-07-28 results carry the SDK's own serverInfo there).
    expect(Object.keys(link._meta ?? {}).filter((key) => !key.startsWith('io.modelcontextprotocol/'))).toEqual([]);
    const id = (link.structuredContent as { id: string }).id;
    const [before, after] = [await call(plain, 'retrieve_payment_link', { id }), await call(apps, 'retrieve_payment_link', { id })];
    expect(cardOf(after)).toBeDefined();
    const { [CARD_META_KEY]: card, ...otherMeta } = after._meta as Record<string, unknown>;
    const withoutCard = Object.keys(otherMeta).length === 0 ? (({ _meta, ...rest }) => rest)(after) : { ...after, _meta: otherMeta };
    expect(card).toBeDefined();
    expect(withoutCard).toEqual(before);
  });

  it('shows a session created by an agent that may not read payments from the session\'s own answer, without waiting', async () => {
    const { token } = await connectAgent(t, biz, { resource: `${t.config.baseUrl}/mcp`, scopes: ['checkouts:write'] });
    const client = await connect(token);
    const input = { amount: '9.00', currency: 'USD', description: 'Create only', idempotency_key: 'create-only-1' };
    const session = await call(client, 'create_checkout_session', input);
    expect(session.isError, JSON.stringify(session.content)).toBeFalsy();
    const card = cardOf(session);
    expect(card?.html).toContain('Checkout session');
    expect(card?.html).toContain('Create only');
    expect(card?.html).toContain('<data value="9.00">9.00</data> USD');
    expect(card?.html).toContain((session.structuredContent as { url: string }).url);
    expect(card?.wait).toBeNull();
    // Once money arrived (held here), what it was is the payment's, which this agent may not read: no card that would guess.
    const { id } = session.structuredContent as { id: string };
    expect((await call(client, 'start_checkout_session', { id, email: 'buyer@example.com' })).isError).toBeFalsy();
    expect((await call(client, 'simulate_payment', { id, outcome: 'underpaid' })).isError).toBeFalsy();
    const replayed = await call(client, 'create_checkout_session', input);
    expect(replayed.structuredContent).toMatchObject({ id, status: 'held' });
    expect(cardOf(replayed)).toBeUndefined();
  });

  it('keeps URL elicitation\'s mark last in a session id, where an instance from before MCP Apps looks for it, and reads ids of before', () => {
    const both = legacySessionId({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: { ...APPS, elicitation: { url: {} } } } })!;
    expect(both).toMatch(/^[0-9a-f-]{36}\.mcp-apps\.elicitation-url$/);
    expect(legacyClient(both)).toEqual({ declaredUrlElicitation: true, declaredApps: true });
    expect(legacyClient('3f0c1d52-6f4e-4f65-9d7c-2b4f8f6f0d11.elicitation-url')).toEqual({ declaredUrlElicitation: true, declaredApps: false });
    expect(legacyClient(undefined)).toEqual({ declaredUrlElicitation: false, declaredApps: false });
  });

  it('remembers a 2025-era client\'s declaration through its session id, and with URL elicitation too', async () => {
    const legacy = await connect(full, APPS, 'legacy');
    const { tools } = await legacy.listTools();
    expect(tools.find((tool) => tool.name === 'retrieve_payment')?._meta).toMatchObject({ ui: { resourceUri: CARD_URI } });
    const link = await call(legacy, 'create_payment_link', { amount: '3.00', currency: 'USD', description: 'Legacy host' });
    expect(cardOf(link)?.html).toContain('Legacy host');
    const both = await connect(full, { ...APPS, elicitation: { url: {} } }, 'legacy');
    expect((await both.listTools()).tools.find((tool) => tool.name === 'retrieve_payment')?._meta).toBeDefined();
    const neither = await connect(full, {}, 'legacy');
    expect((await neither.listTools()).tools.every((tool) => tool._meta === undefined)).toBe(true);
  });
});

describe('the MCP Inspector', () => {
  const run = promisify(execFile);
  const probe = async (key: string, ...extra: string[]) => {
    const args = ['--cli', `${t.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, '--method', 'tools/call', '--tool-name', 'create_payment_link', '--app-info', ...extra];
    try {
      return JSON.parse((await run('node_modules/.bin/mcp-inspector', args, { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 })).stdout) as Record<string, unknown>;
    } catch (error) {
      return JSON.parse((error as { stdout: string }).stdout) as Record<string, unknown>;
    }
  };

  it('finds the card with --advertise-apps (with a secret key too), and no app without it', async () => {
    const key = (await biz.key()).secret;
    expect(await probe(key, '--advertise-apps')).toEqual({
      hasApp: true, toolName: 'create_payment_link', resourceUri: CARD_URI, visibility: ['model', 'app'],
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, permissions: { clipboardWrite: {} }, prefersBorder: true,
      resourceMimeType: RESOURCE_MIME_TYPE,
    });
    expect(await probe(key)).toEqual({ hasApp: false, toolName: 'create_payment_link' });
  });
});

/** The text jsQR reads from a PNG photograph, or null when it finds no code. */
function decodePng(png: Buffer): string | null {
  const { data, width, height } = PNG.sync.read(png);
  return jsQR.default(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data ?? null;
}

describe('in a host, in Chromium', () => {
  let browser: Browser;
  let host: AppHost;
  let page: Page;
  let cardHtml: string;
  /** The card's declared content security, which the host enforces. */
  let cardCsp: McpUiResourceCsp;
  let fullClient: Client;
  let readClient: Client;
  /** Which client the host's tool calls go to, and the calls the app made. */
  let hostClient: Client;
  /** When set, the host asks the service to answer each wait after this many seconds (a wait the service ends early). */
  let waitTimeout: number | undefined;
  /** When set, the host fails each wait with this error instead of passing it on (as the server refused it). */
  let waitFailure: Error | undefined;
  const appCalls: Array<{ name: string; arguments?: Record<string, unknown> }> = [];
  /** The calls the app let go (their cancellation reached the host). */
  const letGo: Array<{ name: string; arguments?: Record<string, unknown> }> = [];
  /** Every request the host page or the app made. */
  const requests: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
    host = await startAppHost();
    fullClient = await connect(full);
    readClient = await connect(readOnly);
    hostClient = fullClient;
    ({ text: cardHtml, _meta: { ui: { csp: cardCsp } } } = (await fullClient.readResource({ uri: CARD_URI })).contents[0] as unknown as { text: string; _meta: { ui: { csp: McpUiResourceCsp } } });
    page = await browser.newPage({ viewport: { width: 700, height: 900 } });
    page.on('request', (request) => requests.push(request.url()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await host.open(page, async (params, signal) => {
      appCalls.push(params);
      signal.addEventListener('abort', () => letGo.push(params));
      if (params.name === 'wait_for_payment' && waitFailure !== undefined) throw waitFailure;
      const args = params.name === 'wait_for_payment' && waitTimeout !== undefined ? { ...params.arguments, timeout: waitTimeout } : params.arguments ?? {};
      return hostClient.callTool({ name: params.name, arguments: args }, { signal });
    });
    // The host page and its script, from the host alone: every later request is a card's.
    expect(requests.map((url) => new URL(url)).map((url) => [url.origin, url.pathname])).toEqual([[host.origin, '/'], [host.origin, '/host.js']]);
  }, 600_000);

  afterAll(async () => {
    if (page) await unmountApp(page).catch(() => undefined);
    await browser?.close();
    await host?.app.close();
  });

  /** Shows a tool's answer in a fresh card, as the host does after the model called the tool. */
  async function show(input: Record<string, unknown>, answer: ToolAnswer, options: { theme?: 'light' | 'dark'; width?: number; client?: Client } = {}): Promise<Frame> {
    hostClient = options.client ?? fullClient;
    await page.setViewportSize({ width: options.width ?? 700, height: 900 });
    const frame = await mountApp(page, cardHtml, cardCsp, options.theme ?? 'light');
    await sendToolResult(page, input, answer);
    await frame.locator('article.payment-card').waitFor();
    return frame;
  }

  async function photograph(name: string): Promise<void> {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    const frame = page.locator('iframe');
    await page.waitForTimeout(100);
    await frame.screenshot({ path: new URL(`mcp-card-${name}.png`, SHOTS).pathname });
  }

  async function createLink(args: Record<string, unknown>): Promise<{ input: Record<string, unknown>; answer: ToolAnswer; id: string; url: string }> {
    const answer = await call(fullClient, 'create_payment_link', args);
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    const { id, url } = answer.structuredContent as { id: string; url: string };
    return { input: args, answer, id, url };
  }

  /** A buyer starts paying the link (Test money can arrive only then): its payment, as retrieve_payment answers it. */
  async function started(id: string): Promise<ToolAnswer> {
    const start = await call(fullClient, 'start_checkout_session', { id, email: 'buyer@example.com' });
    expect(start.isError, JSON.stringify(start.content)).toBeFalsy();
    return call(fullClient, 'retrieve_payment', { id });
  }

  it('shows a created link: the business, what is sold, the amount, its status, the payer address and a QR code that decodes to it', async () => {
    const link = await createLink({ amount: '30.00', currency: 'EUR', description: 'Tea set', customer_name: 'Ada' });
    const frame = await show(link.input, link.answer);
    const card = frame.locator('article.payment-card');
    await expect.poll(() => card.getAttribute('data-status')).toBe('open');
    expect(await frame.locator('.card-business').textContent()).toBe('Tea & Co');
    expect(await frame.locator('#card-title').textContent()).toBe('Tea set');
    expect(await frame.locator('.card-amount').textContent()).toBe('30.00 EUR');
    expect(await frame.locator('.card-status').textContent()).toBe('Open');
    expect(await frame.locator('.mode-badge').textContent()).toBe('Test mode');
    expect(await frame.locator('#payer-url').textContent()).toBe(link.url);
    expect(await frame.getByRole('img', { name: 'QR code of the payer address' }).count()).toBe(1);
    expect(decodePng(await frame.locator('svg.qr-code').screenshot())).toBe(link.url);
    await photograph('open-light');
    // Copy is offered (the script shows it); the payer page opens through the host, never in the frame.
    await frame.getByRole('button', { name: 'Copy the payer address' }).click();
    await expect.poll(() => frame.locator('#payer-url-status').textContent()).toMatch(/Copied|Selected/);
    await frame.getByRole('link', { name: 'Open the payer page' }).click();
    await expect.poll(() => openedLinks(page)).toContain(link.url);
    expect(frame.url()).toBe('about:srcdoc');
    // All of it under the policy the host made from the card's declared domains (none): a request
    // the card would make is refused there.
    // (The host's own script answers anyone, without this policy.)
    const sent = requests.length;
    expect(await refusedByPolicy(frame)).toEqual([]);
    expect(await frame.evaluate((url) => fetch(url, { mode: 'no-cors' }).then(() => 'sent', () => 'refused'), `${host.origin}/host.js`)).toBe('refused');
    expect(requests.length).toBe(sent);
    await expect.poll(() => refusedByPolicy(frame)).toEqual([`connect-src ${host.origin}/host.js`]);
    await setHostTheme(page, 'dark');
    await expect.poll(() => frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await photograph('open-dark');
    // The host's own style variables, where it gives them, are the card's ground, text and font.
    const styled = await mountApp(page, cardHtml, cardCsp, 'light', { '--color-background-primary': 'rgb(250, 245, 235)', '--color-text-primary': 'rgb(20, 30, 40)', '--font-sans': 'serif' });
    await sendToolResult(page, link.input, link.answer);
    await styled.locator('article.payment-card').waitFor();
    expect(await styled.evaluate(() => { const style = getComputedStyle(document.documentElement); return [style.backgroundColor, style.color, style.fontFamily]; }))
      .toEqual(['rgb(250, 245, 235)', 'rgb(20, 30, 40)', 'serif']);
  });

  it('turns paid within two seconds of a Test simulation, without a reload, by waiting through the host', async () => {
    const link = await createLink({ amount: '18.00', currency: 'USD', description: 'Green tea' });
    const frame = await show({ id: link.id }, await started(link.id));
    const card = frame.locator('article.payment-card');
    await expect.poll(() => appCalls.some((each) => each.name === 'wait_for_payment' && each.arguments?.id === link.id)).toBe(true);
    const simulated = performance.now();
    const paid = await call(fullClient, 'simulate_payment', { id: link.id, outcome: 'paid' });
    expect(paid.isError).toBeFalsy();
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 2_000, interval: 50 }).toBe('paid');
    expect(performance.now() - simulated).toBeLessThan(2_000);
    expect(await frame.locator('.card-status').textContent()).toBe('Paid');
    expect(await frame.locator('#announce').textContent()).toBe('Status: Paid');
  });

  it('shows a held payment\'s reason and what arrived', async () => {
    const link = await createLink({ amount: '40.00', currency: 'USD', description: 'Oolong tin' });
    await started(link.id);
    const underpaid = await call(fullClient, 'simulate_payment', { id: link.id, outcome: 'underpaid' });
    expect(underpaid.isError, JSON.stringify(underpaid.content)).toBeFalsy();
    const held = await call(fullClient, 'retrieve_payment', { id: link.id });
    const frame = await show({ id: link.id }, held);
    expect(await frame.locator('article.payment-card').getAttribute('data-status')).toBe('held');
    expect(await frame.locator('.card-status').textContent()).toBe('Held');
    const notice = await frame.locator('.notice').textContent();
    expect(notice).toContain(`Held because${(held.structuredContent as { hold_reason: string }).hold_reason}`);
    expect(notice).toMatch(/What arrived: \d+\.\d{2,} USDC on Polygon\./);
    await photograph('held-light');
  });

  it('shows an approval\'s summary and opens the approval page in the browser, not in the frame', async () => {
    const client = await connect(approving);
    const input = { amount: '900.00', currency: 'USD', description: 'Tea for the office' };
    const answer = await call(client, 'create_payment_link', input);
    expect(answer.isError).toBe(true);
    const url = (JSON.parse((answer.content as Array<{ text: string }>)[0]!.text) as { error: { approval_url: string } }).error.approval_url;
    const frame = await show(input, answer, { client });
    expect(await frame.locator('#card-title').textContent()).toBe('Create a payment link: 900.00 USD');
    expect(await frame.locator('article').textContent()).toContain('Tea for the office');
    expect(await frame.locator('.notice').textContent()).toMatch(/because: .*500\.00/);
    await frame.getByRole('link', { name: 'Open the approval page' }).click();
    await expect.poll(() => openedLinks(page)).toContain(url);
    expect(frame.url()).toBe('about:srcdoc');
    await photograph('approval-light');
  });

  it('gives a Read only agent no control that changes anything, and calls only the wait tool for it', async () => {
    const link = await createLink({ amount: '9.00', currency: 'USD', description: 'Read only view' });
    const retrieved = await call(readClient, 'retrieve_payment_link', { id: link.id });
    const before = appCalls.length;
    const frame = await show({ id: link.id }, retrieved, { client: readClient });
    await expect.poll(() => appCalls.length).toBeGreaterThan(before);
    expect(await frame.locator('[data-tool]').count()).toBe(0);
    expect(await frame.getByRole('button').allTextContents()).toEqual(['Copy the payer address']);
    expect(new Set(appCalls.slice(before).map((each) => each.name))).toEqual(new Set(['wait_for_payment']));
    // A full agent's card offers the cancel, and once a buyer started, the Test controls; they work through the host.
    expect(await (await show(link.input, link.answer)).locator('[data-tool]').allTextContents()).toEqual(['Cancel the link']);
    const frameFull = await show({ id: link.id }, await started(link.id));
    expect(await frameFull.locator('[data-tool]').allTextContents()).toEqual(['Test: the full amount arrives', 'Test: less than asked arrives', 'Cancel the link']);
    await frameFull.getByRole('button', { name: 'Test: the full amount arrives' }).click();
    await expect.poll(async () => `${await frameFull.locator('article.payment-card').getAttribute('data-status')} ${await frameFull.locator('article').textContent()}`).toMatch(/^paid /);
    await photograph('paid-light');
  });

  it('asks before cancelling a link, then cancels it through the host; a refusal is said beside the buttons', async () => {
    const link = await createLink({ amount: '6.00', currency: 'USD', description: 'Second thoughts' });
    const frame = await show(link.input, link.answer);
    const cancel = frame.locator('[data-tool="cancel_payment_link"]');
    await cancel.click();
    expect(await frame.locator('[data-said]').textContent()).toMatch(/^Cancel this link\? Nobody can start paying it/);
    expect(await cancel.textContent()).toBe('Yes, cancel the link');
    expect((await call(fullClient, 'retrieve_payment_link', { id: link.id })).structuredContent).toMatchObject({ canceled_at: null });
    await cancel.click();
    await expect.poll(() => frame.locator('.card-status').textContent()).toBe('Canceled');
    expect(await cancel.count()).toBe(0);

    // A link a buyer took to a card provider meanwhile cannot be canceled: the card says why, and stays.
    const other = await createLink({ amount: '6.00', currency: 'USD', description: 'Too late' });
    const shown = await show(other.input, other.answer);
    await expect.poll(() => appCalls.some((each) => each.name === 'wait_for_payment' && each.arguments?.id === other.id)).toBe(true);
    await page.evaluate(() => { document.querySelector('iframe')!.style.display = 'none'; });
    await expect.poll(() => letGo.filter((each) => each.arguments?.id === other.id).length).toBe(1); // the card lets its wait go as it leaves sight
    await started(other.id);
    expect((await call(fullClient, 'simulate_payment', { id: other.id, outcome: 'provider_reached' })).isError).toBeFalsy();
    await page.evaluate(() => { document.querySelector('iframe')!.style.display = 'block'; });
    const late = shown.locator('[data-tool="cancel_payment_link"]');
    await late.click();
    await late.click();
    await expect.poll(() => shown.locator('[data-said]').textContent()).toMatch(/./);
    expect(await shown.locator('[data-said]').getAttribute('class')).toContain('refused');
    expect(await shown.locator('article.payment-card').count()).toBe(1);
  });

  it('says so when the host cancels the tool or passes no tool calls on (no buttons, no waiting then)', async () => {
    hostClient = fullClient;
    let frame = await mountApp(page, cardHtml, cardCsp, 'light');
    await sendToolCancelled(page);
    expect(await frame.locator('h1').textContent()).toBe('Not done');
    const link = await createLink({ amount: '2.00', currency: 'USD', description: 'Links only' });
    const before = appCalls.length;
    frame = await mountApp(page, cardHtml, cardCsp, 'light', undefined, { openLinks: {} });
    await sendToolResult(page, link.input, link.answer);
    await frame.locator('article.payment-card').waitFor();
    expect(await frame.locator('[data-tool]').count()).toBe(0);
    expect(await frame.getByRole('button').allTextContents()).toEqual(['Copy the payer address']);
    await page.waitForTimeout(500);
    expect(appCalls.length).toBe(before);
  });

  it('keeps no wait open while the card is out of sight, and catches up when it is seen again', async () => {
    const link = await createLink({ amount: '7.00', currency: 'USD', description: 'Out of sight' });
    const frame = await show({ id: link.id }, await started(link.id));
    const waits = () => appCalls.filter((each) => each.name === 'wait_for_payment' && each.arguments?.id === link.id).length;
    await expect.poll(waits).toBe(1);
    await page.evaluate(() => { document.querySelector('iframe')!.style.display = 'none'; });
    await expect.poll(() => letGo.filter((each) => each.arguments?.id === link.id).length).toBe(1);
    await call(fullClient, 'simulate_payment', { id: link.id, outcome: 'paid' });
    await page.waitForTimeout(1_000);
    // The wait in flight was let go before the payment changed: the hidden card did not change, nor asked again.
    expect(waits()).toBe(1);
    expect(await frame.locator('article.payment-card').getAttribute('data-status')).toBe('open');
    await page.evaluate(() => { document.querySelector('iframe')!.style.display = 'block'; });
    // Seen again, it asks again (no sooner than 5 s after the wait it let go began: a card flickering at the edge).
    await expect.poll(() => frame.locator('article.payment-card').getAttribute('data-status'), { timeout: 8_000 }).toBe('paid');
    expect(waits()).toBe(2);
  });

  it('waits no more often than the wait\'s bound while nothing changes, even when the service answers early, and stops when the host tears it down', async () => {
    const link = await createLink({ amount: '5.00', currency: 'USD', description: 'Patience' });
    const before = appCalls.length;
    const waits = () => appCalls.slice(before).filter((each) => each.name === 'wait_for_payment');
    // The service answers each wait after a second, unchanged (as when it shuts down): the card
    // does not ask again until the bound has passed since the last wait began.
    waitTimeout = 1;
    try {
      await show(link.input, link.answer);
      await expect.poll(() => waits().length).toBe(1);
      await page.waitForTimeout(4_000);
      expect(waits()).toHaveLength(1);
    } finally {
      waitTimeout = undefined;
    }
    await unmountApp(page);
    const after = appCalls.length;
    await page.waitForTimeout(500);
    expect(appCalls.length).toBe(after);
  });

  it('after a second let go in a row, waits the whole bound before asking again (a card flickering at the edge of sight)', async () => {
    const link = await createLink({ amount: '7.50', currency: 'USD', description: 'Flicker' });
    await show({ id: link.id }, await started(link.id));
    const waits = () => appCalls.filter((each) => each.name === 'wait_for_payment' && each.arguments?.id === link.id).length;
    const flicker = async () => {
      await page.evaluate(() => { document.querySelector('iframe')!.style.display = 'none'; });
      await page.waitForTimeout(200);
      await page.evaluate(() => { document.querySelector('iframe')!.style.display = 'block'; });
    };
    await expect.poll(waits).toBe(1);
    await flicker();
    // The first let go: asked again 5 s after the wait it let go began.
    await expect.poll(waits, { timeout: 8_000 }).toBe(2);
    await flicker();
    // The second in a row: not before the bound (25 s) has passed.
    await page.waitForTimeout(6_000);
    expect(waits()).toBe(2);
  });

  it('stops updating, and says so, when the server no longer lists the wait tool or refuses the credential; other failures are asked again later', async () => {
    const link = await createLink({ amount: '3.50', currency: 'USD', description: 'Lost scope' });
    const waits = () => appCalls.filter((each) => each.name === 'wait_for_payment' && each.arguments?.id === link.id).length;
    const stopped = 'Not updating: this connection may no longer follow the payment.';
    // The host's connection is now an agent that may not read payments: the server lists no wait tool.
    const { token } = await connectAgent(t, biz, { resource: `${t.config.baseUrl}/mcp`, scopes: ['orders:read'] });
    const frame = await show(link.input, link.answer, { client: await connect(token) });
    await expect.poll(() => frame.locator('[data-live]').textContent()).toBe(stopped);
    expect(waits()).toBe(1);
    // The host's connection is a key revoked since the answer came.
    const key = await biz.key();
    const keyClient = await connect(key.secret);
    await key.revoke();
    const revoked = await show(link.input, link.answer, { client: keyClient });
    await expect.poll(() => revoked.locator('[data-live]').textContent()).toBe(stopped);
    expect(waits()).toBe(2);
    // A failure that may pass is asked again later.
    waitFailure = new Error('fetch failed');
    try {
      const again = await show(link.input, link.answer);
      await expect.poll(() => again.locator('[data-live]').textContent()).toBe('Not updating right now; trying again in 25 seconds.');
    } finally {
      waitFailure = undefined;
    }
  });

  it('keeps its wait when the host sends the same result again', async () => {
    const link = await createLink({ amount: '3.75', currency: 'USD', description: 'Sent twice' });
    await show(link.input, link.answer);
    const mine = (list: typeof appCalls) => list.filter((each) => each.name === 'wait_for_payment' && each.arguments?.id === link.id).length;
    await expect.poll(() => mine(appCalls)).toBe(1);
    await sendToolResult(page, link.input, link.answer);
    await sendToolResult(page, link.input, link.answer);
    await page.waitForTimeout(500);
    expect([mine(appCalls), mine(letGo)]).toEqual([1, 0]);
  });

  it('takes out of a card\'s markup whatever could run or load, should the service\'s renderer ever let it by', async () => {
    hostClient = fullClient;
    const frame = await mountApp(page, cardHtml, cardCsp, 'light');
    const before = requests.length;
    const html = '<article class="payment-card" data-status="paid"><h1 id="card-title" onmouseover="alert(1)">Crafted</h1>'
      + '<img src="x" onerror="alert(2)"><a href="javascript:alert(3)">go</a><a href="https://pay.example.test/">fine</a>'
      + '<script>alert(4)</script><iframe srcdoc="<p>x</p>"></iframe><form action="https://pay.example.test/"><button formaction="javascript:alert(5)">b</button></form>'
      + '<p style="background:url(https://pay.example.test/x.png)">styled</p><svg><a href="javascript:alert(6)"><text>t</text></a><a href="https://pay.example.test/svg"><text>u</text></a></svg>'
      + '<svg><a><set attributeName="href" to="javascript:alert(7)"/><animate attributeName="href" values="javascript:alert(8)"/><text>s</text></a>'
      + '<use href="data:image/svg+xml,<svg/>"/><foreignObject><p>f</p></foreignObject></svg>'
      + '<style>@import url(https://pay.example.test/x.css);</style><img srcset="https://pay.example.test/y.png 1x"><a href=" javascript:alert(9)">spaced</a></article>';
    await sendToolResult(page, {}, { content: [{ type: 'text', text: '{}' }], _meta: { [CARD_META_KEY]: { kind: 'payment', html, wait: null } } });
    await frame.locator('#card-title').waitFor();
    await frame.locator('#card-title').hover();
    expect(await frame.evaluate(() => ({
      handlers: [...document.querySelectorAll('#card *')].flatMap((element) => [...element.attributes].filter((attribute) => attribute.name.startsWith('on')).map((attribute) => attribute.name)),
      hrefs: [...document.querySelectorAll('#card [href]')].map((element) => element.getAttribute('href')),
      embedded: document.querySelectorAll('#card script, #card iframe, #card form, #card style, #card set, #card animate, #card use, #card foreignObject').length,
      images: [...document.querySelectorAll('#card img')].map((element) => element.getAttribute('src')),
      styled: document.querySelector('#card p')?.getAttribute('style') ?? null,
    }))).toEqual({ handlers: [], hrefs: ['https://pay.example.test/'], embedded: 0, images: [], styled: null });
    await page.waitForTimeout(200);
    expect(dialogs).toEqual([]);
    expect(requests.slice(before)).toEqual([]);
    // Nor did anything left try to load and meet the host's policy.
    expect(await refusedByPolicy(frame)).toEqual([]);
  });

  it('keeps hostile values as text: a description, a name and a memo of markup run nothing and load nothing', async () => {
    for (const attack of PAGE_ATTACKS.slice(0, 3)) {
      const value = attack.slice(0, 120);
      const link = await createLink({ amount: '1.00', currency: 'USD', description: value, customer_name: attack.slice(0, 80), memo: attack.slice(0, 500) });
      const frame = await show(link.input, link.answer);
      expect(await frame.locator('#card-title').textContent()).toBe(value);
      expect(await frame.locator('img, iframe, object, embed').count()).toBe(0);
      expect(await frame.locator('#card script').count()).toBe(0);
      expect(await frame.evaluate(() => [...document.querySelectorAll('*')].some((element) => [...element.attributes].some((attribute) => attribute.name.startsWith('on'))))).toBe(false);
    }
    expect(dialogs).toEqual([]);
  });

  // Each state in both themes at both widths: four axe runs per test (twelve in one test outran its
  // time on a two-core CI machine).
  async function checkAccessible(name: string, input: Record<string, unknown>, answer: ToolAnswer, client: Client): Promise<void> {
    const before = requests.length;
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [360, 700]) {
        const frame = await show(input, answer, { theme, width, client });
        const findings = await axeFindings(frame);
        expect(findings.serious, `${name} ${theme} ${width}px`).toEqual([]);
        expect(await refusedByPolicy(frame), `${name} ${theme} ${width}px`).toEqual([]);
        // Nothing wider than the frame.
        expect(await frame.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${name} ${theme} ${width}px`).toBe(true);
        if (width === 360 && (name !== 'open' || theme === 'dark')) await photograph(`${name}-${theme}-phone`);
        else if (width === 700 && theme === 'dark' && name !== 'open') await photograph(`${name}-dark`);
      }
    }
    // This card, in every theme and width, asked nothing of anyone (the host page and its script
    // were loaded once, before; a card's picture or font would show here, or as refused by the policy).
    expect(requests.slice(before)).toEqual([]);
  }

  it('passes axe in both themes at 360 and 700 px for an open card, and asks nothing outside the host', { timeout: 60_000 }, async () => {
    const open = await createLink({ amount: '30.00', currency: 'EUR', description: 'Tea set' });
    await checkAccessible('open', open.input, open.answer, fullClient);
  });

  it('passes axe in both themes at 360 and 700 px for a held card', { timeout: 60_000 }, async () => {
    const heldLink = await createLink({ amount: '40.00', currency: 'USD', description: 'Oolong tin' });
    await started(heldLink.id);
    await call(fullClient, 'simulate_payment', { id: heldLink.id, outcome: 'underpaid' });
    const held = await call(fullClient, 'retrieve_payment', { id: heldLink.id });
    await checkAccessible('held', { id: heldLink.id }, held, fullClient);
  });

  it('passes axe in both themes at 360 and 700 px for an approval card', { timeout: 60_000 }, async () => {
    const approvalClient = await connect(approving);
    const approvalInput = { amount: '800.00', currency: 'USD', description: 'Big order' };
    const approval = await call(approvalClient, 'create_payment_link', approvalInput);
    await checkAccessible('approval', approvalInput, approval, approvalClient);
  });

});

// Last: it moves the clock two days (the agents' five-minute tokens with it).
describe('after expiry', () => {
  it('keeps waiting on an expired payment a buyer started (money may still arrive), not on one nobody started', async () => {
    const client = await connect((await biz.key()).secret);
    const create = async (description: string) => (await call(client, 'create_payment_link', { amount: '4.00', currency: 'USD', description, expires_in_days: 1 })).structuredContent as { id: string };
    const [startedLink, untouched] = [await create('Started, then expired'), await create('Never started')];
    expect((await call(client, 'start_checkout_session', { id: startedLink.id, email: 'late@example.com' })).isError).toBeFalsy();
    await t.jump(2 * 24 * 60 * 60 * 1000);
    const late = await call(client, 'retrieve_payment', { id: startedLink.id });
    expect(late.structuredContent).toMatchObject({ status: 'expired' });
    expect(cardOf(late)?.wait).toEqual({ id: startedLink.id, status: 'expired' });
    const never = await call(client, 'retrieve_payment', { id: untouched.id });
    expect(never.structuredContent).toMatchObject({ status: 'expired', started_at: null });
    expect(cardOf(never)?.wait).toBeNull();
  });
});
