import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import Fastify, { type FastifyInstance } from 'fastify';
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Frame, Page } from 'playwright-core';

// A chat host of MCP Apps, as hosts embed them: the ext-apps SDK's own host side (AppBridge and
// PostMessageTransport, bundled unchanged for the browser by esbuild), a page on loopback that
// puts an app's HTML in a sandboxed iframe (allow-scripts only: an opaque origin, no same-origin,
// no popups), and the bridge's tool calls handed to the test (a real MCP client against the
// service). The page records the links the app asked the host to open.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let bundled: Promise<string> | undefined;

/** AppBridge and PostMessageTransport as one browser script defining `McpHost`. */
function hostScript(): Promise<string> {
  bundled ??= build({
    stdin: { contents: 'export { AppBridge, PostMessageTransport } from \'@modelcontextprotocol/ext-apps/app-bridge\';', resolveDir: ROOT, loader: 'js' },
    bundle: true, format: 'iife', globalName: 'McpHost', platform: 'browser', write: false, minify: true, logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}

// The host page's own part: mount an app's HTML with a theme (and the host's style variables),
// connect the bridge, and tell the test what the app does.
const MOUNT = `
window.openedLinks = [];
let callIds = 0;
window.mountApp = async ({ html, theme, variables, capabilities, policy }) => {
  if (window.bridge) await window.bridge.teardownResource({}).catch(() => {});
  document.documentElement.style.colorScheme = theme;
  document.body.replaceChildren();
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'Payment card';
  iframe.style.cssText = 'display:block;width:100%;height:200px;border:0';
  document.body.append(iframe);
  const context = { theme, displayMode: 'inline', platform: 'web', ...(variables ? { styles: { variables } } : {}) };
  const bridge = new McpHost.AppBridge(null, { name: 'test-host', version: '1.0.0' }, capabilities ?? { serverTools: {}, openLinks: {} }, { hostContext: context });
  // A call the app lets go is cancelled at the service too, as hosts pass cancellation on.
  bridge.oncalltool = (params, extra) => {
    const id = ++callIds;
    extra.mcpReq.signal.addEventListener('abort', () => { void window.hostCancelTool(id); });
    return window.hostCallTool(id, params);
  };
  bridge.onopenlink = async ({ url }) => { window.openedLinks.push(url); return {}; };
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new McpHost.PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  window.bridge = bridge;
  // The app's declared content security, as the host enforces it: a policy before anything else in
  // its document, and (the test's own) a record of what the policy refused.
  if (!/<head>/i.test(html)) throw new Error("The app's document has no <head> to put its policy in.");
  const watch = '<script>window.refusedByPolicy=[];document.addEventListener("securitypolicyviolation",(e)=>refusedByPolicy.push(e.violatedDirective+" "+e.blockedURI));</script>';
  iframe.srcdoc = html.replace(/<head>/i, () => '<head><meta http-equiv="Content-Security-Policy" content="' + policy.replaceAll('"', '&quot;') + '">' + watch);
  await initialized;
};
window.sendToolResult = (input, result) => { window.bridge.sendToolInput({ arguments: input }); return window.bridge.sendToolResult(result); };
window.sendToolCancelled = () => window.bridge.sendToolCancelled({ reason: 'The person stopped it.' });
window.setTheme = (theme) => { document.documentElement.style.colorScheme = theme; return window.bridge.setHostContext({ theme }); };
window.unmountApp = async () => { if (window.bridge) await window.bridge.teardownResource({}).catch(() => {}); window.bridge = undefined; document.body.replaceChildren(); };
`;

export interface AppHost {
  app: FastifyInstance;
  origin: string;
  /** Opens the host page in `page`, its tool calls going to `callTool` (whose signal aborts when the app lets the call go). */
  open(page: Page, callTool: (params: { name: string; arguments?: Record<string, unknown> }, signal: AbortSignal) => Promise<unknown>): Promise<void>;
}

export async function startAppHost(): Promise<AppHost> {
  const script = `${await hostScript()}\n${MOUNT}`;
  const app = Fastify();
  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8')
    .send('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title><script src="/host.js"></script></head><body></body></html>'));
  app.get('/host.js', async (_request, reply) => reply.type('text/javascript').send(script));
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    origin,
    open: async (page, callTool) => {
      const calls = new Map<number, AbortController>();
      await page.exposeFunction('hostCallTool', async (id: number, params: { name: string; arguments?: Record<string, unknown> }) => {
        const controller = new AbortController();
        calls.set(id, controller);
        try {
          return await callTool(params, controller.signal);
        } catch (error) {
          // A call let go answers nothing the app reads; any other failure is the app's to see.
          if (controller.signal.aborted) return { isError: true, content: [{ type: 'text', text: 'cancelled' }] };
          throw error;
        } finally {
          calls.delete(id);
        }
      });
      await page.exposeFunction('hostCancelTool', (id: number) => calls.get(id)?.abort());
      await page.goto(`${origin}/`);
    },
  };
}

/**
 * The policy a host enforces for an app's declared domains, as the MCP Apps specification maps
 * them (specification/2026-01-26/apps.mdx, and McpUiResourceCsp's own words): nothing by default;
 * the document's own and inline script and style; its own and `data:` pictures and media; fonts
 * and the rest of the static resources from resourceDomains; requests and frames only where
 * declared; base URIs its own or those declared.
 */
export function hostPolicy(csp: McpUiResourceCsp): string {
  const listed = (domains: string[] | undefined, otherwise: string) => (domains?.length ? domains.join(' ') : otherwise);
  const resources = (csp.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `style-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `img-src 'self' data: ${resources}`.trim(),
    `media-src 'self' data: ${resources}`.trim(),
    `font-src ${listed(csp.resourceDomains, "'none'")}`,
    `connect-src ${listed(csp.connectDomains, "'none'")}`,
    `frame-src ${listed(csp.frameDomains, "'none'")}`,
    `base-uri ${listed(csp.baseUriDomains, "'self'")}`,
  ].join('; ');
}

/** What the policy refused in the mounted app's document (directive and address), since it started. */
export const refusedByPolicy = (frame: Frame): Promise<string[]> => frame.evaluate(() => (window as unknown as { refusedByPolicy: string[] }).refusedByPolicy);

/**
 * Mounts an app in the host page under `csp` (its declared content security, enforced) and waits
 * until it has initialized with the bridge; `capabilities`: the host's (default: tool calls and links).
 */
export async function mountApp(page: Page, html: string, csp: McpUiResourceCsp, theme: 'light' | 'dark', variables?: Record<string, string>, capabilities?: Record<string, unknown>): Promise<Frame> {
  await page.evaluate(async (options) => (window as unknown as { mountApp: (o: unknown) => Promise<void> }).mountApp(options), { html, theme, variables, capabilities, policy: hostPolicy(csp) });
  // The iframe now in the page (the one before it is gone, though Playwright may list it a moment longer).
  const frame = await (await page.$('iframe'))?.contentFrame();
  if (!frame) throw new Error('The app\'s frame is not there.');
  return frame;
}

/** Sends a tool's input and result to the mounted app, as a host does once the tool answered. */
export async function sendToolResult(page: Page, input: Record<string, unknown>, result: unknown): Promise<void> {
  await page.evaluate(async ([args, answer]) => (window as unknown as { sendToolResult: (a: unknown, r: unknown) => Promise<void> }).sendToolResult(args, answer), [input, result] as const);
}

export const sendToolCancelled = (page: Page): Promise<void> => page.evaluate(async () => (window as unknown as { sendToolCancelled: () => Promise<void> }).sendToolCancelled());
export const openedLinks = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { openedLinks: string[] }).openedLinks);
export const setHostTheme = (page: Page, theme: 'light' | 'dark'): Promise<void> => page.evaluate(async (value) => (window as unknown as { setTheme: (t: string) => Promise<void> }).setTheme(value), theme);
export const unmountApp = (page: Page): Promise<void> => page.evaluate(async () => (window as unknown as { unmountApp: () => Promise<void> }).unmountApp());
