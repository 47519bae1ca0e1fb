import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CLIENT_CAPABILITIES_META_KEY, type McpServer } from '@modelcontextprotocol/server';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import { stylesheetText } from '../../ui/index.ts';
import type { ApiError } from '../../core/errors.ts';
import type { AgentApprovalOut } from '../../resources/agent-connections/policy.ts';
import type { CheckoutSessionOut } from '../../resources/checkout-sessions/schemas.ts';
import type { CheckoutOut } from '../../resources/checkouts/schemas.ts';
import type { PaymentLinkOut } from '../../resources/payment-links/schemas.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import { approvalCard, checkoutCard, paymentCard, refusalCard, type Card, type CardPayment, type CardViewer } from './card.ts';

// MCP Apps (the io.modelcontextprotocol/ui extension): for a host that declares it, the tools about
// one payment, link, checkout or session name the payment card (`_meta.ui.resourceUri`), the card's
// HTML is a resource (`text/html;profile=mcp-app`), and each of their results carries the card the
// app shows (`_meta["payment-service/card"]`). A host that does not declare the extension gets
// none of this: the same tools, resources and results as before.

export { EXTENSION_ID };

/** The one app: the payment card. */
export const CARD_URI = 'ui://payment-service/payment-card.html';

/** Where a tool result carries its card for the app. */
export const CARD_META_KEY = 'payment-service/card';

/** The tools whose result is one payment, link, checkout or session: the host shows the card beside them. */
export const CARD_TOOLS: ReadonlySet<string> = new Set([
  'create_payment_link', 'retrieve_payment_link', 'cancel_payment_link',
  'create_checkout', 'retrieve_checkout',
  'create_checkout_session', 'retrieve_checkout_session', 'start_checkout_session',
  'retrieve_payment', 'wait_for_payment', 'simulate_payment',
]);

/** What a tool names for the host: the card, shown to the model and callable by the app. */
export const CARD_TOOL_META = { ui: { resourceUri: CARD_URI, visibility: ['model', 'app'] as Array<'model' | 'app'> } };

/**
 * The card's content security, as the host should apply it: no origin to connect to or load from
 * (everything is inline, the service is reached only through the host's tool calls), and copying
 * the payer address to the clipboard.
 */
const CARD_UI_META = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
};

type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether client capabilities declare MCP Apps with the HTML profile. */
export function declaresApps(capabilities: unknown): boolean {
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  const ui = isObject(extensions) ? extensions[EXTENSION_ID] : undefined;
  return isObject(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(RESOURCE_MIME_TYPE);
}

/** Whether a 2026-07-28 request (capabilities on every request) declares MCP Apps. */
export function requestDeclaresApps(body: unknown): boolean {
  if (!isObject(body) || !isObject(body.params) || !isObject(body.params._meta)) return false;
  return declaresApps(body.params._meta[CLIENT_CAPABILITIES_META_KEY]);
}

// The app's document: the pages' stylesheet and the card's own rules, the ext-apps SDK's App (its
// self-contained build, whose one closing `export{…}` becomes an object our script reads) and
// our script, all inline: the host's frame loads nothing from anywhere.

const require = createRequire(import.meta.url);

/** The SDK's self-contained app build as a script: `export{a as App,…}` becomes `const McpApps={App:a,…}`. */
function sdkScript(): string {
  const built = readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
  const closing = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(built);
  if (!closing) throw new Error('@modelcontextprotocol/ext-apps/app-with-deps no longer ends with one export statement: the payment card cannot inline it (mcp/apps/app.ts).');
  const entries = closing[1]!.split(',').map((part) => {
    const [local, exported = local] = part.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported)}:${local}`;
  });
  return `${built.slice(0, closing.index)}\nconst McpApps={${entries.join(',')}};\n`;
}

/** Text that could end the inline element it sits in. */
const ENDS_INLINE = /<\/(script|style)/i;

function cardDocument(): string {
  const css = `${stylesheetText()}\n${readFileSync(new URL('./card.css', import.meta.url), 'utf8')}`;
  // Zod, inside the SDK, without its JIT (which needs CSP's unsafe-eval, which no host grants): the
  // App's constructor sets that too (allowUnsafeEval: false), but the SDK's schemas are made as its
  // script loads, before, and would still try eval once (a refusal the host's console reports).
  // `globalThis.__zod_globalConfig` is where z.config keeps it.
  const script = `(globalThis.__zod_globalConfig??={}).jitless=true;\n${sdkScript()}${readFileSync(new URL('./card-app.js', import.meta.url), 'utf8')}`;
  if (ENDS_INLINE.test(css) || ENDS_INLINE.test(script)) throw new Error('The payment card\'s inline style or script holds a closing tag.');
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
    + `<title>Payment</title><style>${css}</style></head>`
    + '<body><main id="card"><p class="muted">Loading the payment…</p></main><p id="announce" class="visually-hidden" aria-live="polite"></p>'
    + `<script type="module">${script}</script></body></html>`;
}

let made: string | undefined;

/** The card's document, made once (on the first read). */
export function cardHtml(): string {
  made ??= cardDocument();
  return made;
}

/** Registers the card's resource, for a client that declared MCP Apps. */
export function registerCardResource(server: McpServer): void {
  registerAppResource(server, 'Payment card', CARD_URI, {
    title: 'Payment card',
    description: 'What a payment link, checkout, checkout session or payment is, its status kept live, and its payer address with a QR code.',
    _meta: { ui: CARD_UI_META },
  }, async () => ({ contents: [{ uri: CARD_URI, mimeType: RESOURCE_MIME_TYPE, text: cardHtml(), _meta: { ui: CARD_UI_META } }] }));
}

/** What the card needs beyond a tool's answer, read for the caller as the tools would. */
export interface CardSources {
  viewer: CardViewer;
  /** The payment (of a link or session), as retrieve_payment answers it; undefined when it cannot be read. */
  payment: (id: string) => Promise<PaymentOut | undefined>;
  /** The caller's own approval request; undefined when it is not theirs or gone. */
  approval: (id: string) => Promise<AgentApprovalOut | undefined>;
}

/** A link's statuses once money arrived: what arrived and where it went are its payment's, read for the card. */
const MONEY_ARRIVED = new Set(['paid', 'held']);

/** What an answer other than a payment's says of a payment while no money arrived: nothing arrived, was held or forwarded. */
const NOTHING_ARRIVED = { value_coin: null, coin: null, merchant_received: null, hold_reason: null, hold_acceptable: false } as const;

/** What a link's answer says of its payment while no money arrived. */
function unpaidLink(link: PaymentLinkOut): CardPayment {
  return { ...link, source: 'payment_link', ...NOTHING_ARRIVED };
}

/**
 * What a checkout session's answer says of its payment while no money arrived, for a credential
 * that may not read payments (an agent that asked only to create): its status, amount and page
 * (and no waiting: that needs the same scope). Once money arrived, what it was is the payment's.
 */
function unpaidSession(session: CheckoutSessionOut): CardPayment {
  return { ...session, source: 'api', kindName: 'Checkout session', customer_name: null, memo: null, canceled_at: null, ...NOTHING_ARRIVED };
}

/** The card for a tool's answer (an object of the API) or refusal. */
export async function cardFor(outcome: { body: Json } | { error: ApiError }, sources: CardSources): Promise<Card | undefined> {
  if ('error' in outcome) {
    const { error } = outcome;
    if (error.code === 'approval_required' && error.approvalUrl !== undefined) {
      const approval = await sources.approval(error.approvalUrl.slice(error.approvalUrl.lastIndexOf('/') + 1));
      if (approval) return approvalCard(approval, error.approvalUrl, sources.viewer);
    }
    return refusalCard(error.wording.tool, sources.viewer);
  }
  const { body } = outcome;
  if (body.object === 'payment') return paymentCard(body as unknown as PaymentOut, sources.viewer);
  if (body.object === 'payment_link' && !MONEY_ARRIVED.has(body.status as string)) return paymentCard(unpaidLink(body as unknown as PaymentLinkOut), sources.viewer);
  if (body.object === 'checkout') return checkoutCard(body as unknown as CheckoutOut, sources.viewer);
  if (typeof body.id === 'string' && body.id.startsWith('pay_')) {
    const payment = await sources.payment(body.id);
    if (payment) return paymentCard(payment, sources.viewer);
    if (body.object === 'checkout_session' && !MONEY_ARRIVED.has(body.status as string)) return paymentCard(unpaidSession(body as unknown as CheckoutSessionOut), sources.viewer);
  }
  return undefined;
}

