import type { ComponentChildren, VNode } from 'preact';
import type { AgentApprovalOut } from '../../resources/agent-connections/policy.ts';
import type { CheckoutOut } from '../../resources/checkouts/schemas.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import { checkoutKindName, coinAmount, html, Money, Notice, PaymentBadge, QrCode, renderFragment, sourceName, StatusBadge, Time, operationName, PAYMENT_FACT_NAMES as FACT } from '../../ui/index.ts';

// The payment card an agent's chat host shows beside a tool's result (MCP Apps, apps/app.ts): made
// here by the pages' renderer, with the dashboard's words for statuses, sources and coins and the
// payer pages' QR code, so every value is text and every word is the one people already read.
// The app's script (card-app.js) puts it in place, keeps it live and wires its buttons; a button
// is drawn only when the credential may call the tool it names.

/** Who is looking: the business and mode of the credential, and what it may call. */
export interface CardViewer {
  business: string;
  livemode: boolean;
  /** Whether the credential may call a tool: the card draws a button, or waits, only through tools it may call. */
  mayCall: (tool: string) => boolean;
}

/**
 * What a payment's card shows of it: a payment as the API answers it, or what a link's or session's
 * answer says of its payment (`kindName`: what it is, when its source is not known from that answer).
 */
export type CardPayment = Pick<PaymentOut, 'id' | 'livemode' | 'source' | 'status' | 'amount' | 'currency' | 'description' | 'customer_name' | 'memo'
  | 'value_coin' | 'coin' | 'merchant_received' | 'hold_reason' | 'hold_acceptable' | 'paid_at' | 'expires_at' | 'canceled_at' | 'started_at' | 'url'>
  & { kindName?: string };

/** What the app does after showing a card: wait for this payment to leave this status (wait_for_payment). */
export interface CardWait {
  id: string;
  status: string;
}

/** A card as a tool result carries it to the app (its `_meta`). */
export interface Card {
  kind: 'payment' | 'checkout' | 'approval' | 'refusal';
  html: string;
  wait: CardWait | null;
}

/** The tool the app calls to keep a card live. */
export const WAIT_TOOL = 'wait_for_payment';
const SIMULATE_TOOL = 'simulate_payment';
const CANCEL_TOOL = 'cancel_payment_link';
/** Every tool a payment card may call: what the credential may call of them shapes its card. */
const PAYMENT_CARD_TOOLS = [WAIT_TOOL, SIMULATE_TOOL, CANCEL_TOOL] as const;

/**
 * A payment that may still change by itself: the app keeps waiting on it. An expired one a buyer
 * started may still turn paid or held (money may arrive after expiry, spec 3 rule 3).
 */
const CHANGING = new Set(['open', 'pending', 'held']);
const mayChange = (payment: CardPayment): boolean => CHANGING.has(payment.status) || (payment.status === 'expired' && payment.started_at !== null);
/** A payment a buyer can still pay: its payer address is shown with its QR code. */
const PAYABLE = new Set(['open', 'pending']);

const render = (node: VNode): string => renderFragment(node, { timeZone: 'UTC' });

function Head({ viewer, kind }: { viewer: CardViewer; kind: ComponentChildren }): VNode {
  return html`<header class="card-head">
    <p class="card-business">${viewer.business}</p>
    <p class="card-kind muted">${kind}${viewer.livemode ? null : html` <span class="mode-badge test">Test mode</span>`}</p>
  </header>`;
}

/** A value to copy beside its QR code; the copy button is the app's (hidden until its script runs). */
function PayerAddress({ url, payable }: { url: string; payable: boolean }): VNode {
  return html`<section class="card-payer" aria-labelledby="payer-heading">
    <h2 id="payer-heading">Payer address</h2>
    <p class="card-url"><code id="payer-url">${url}</code></p>
    <p class="card-actions">
      <button type="button" class="button" data-copy="payer-url" hidden>Copy the payer address</button>
      <a class="button" href=${url} data-open-link="">Open the payer page</a>
      <span class="copy-status" id="payer-url-status" aria-live="polite"></span>
    </p>
    ${payable && QrCode({ text: url, label: 'QR code of the payer address' })}
  </section>`;
}

function Fact({ name, children }: { name: string; children: ComponentChildren }): VNode {
  return html`<div class="fact-row"><dt>${name}</dt><dd>${children}</dd></div>`;
}

/**
 * A button that calls `tool` with `args` through the host (the app's script does). `confirm`: what
 * the script asks first, the button then saying `confirmLabel` (a change that cannot be undone).
 */
function ToolButton({ tool, args, children, variant, confirm }: {
  tool: string; args: Record<string, unknown>; children: string; variant?: 'danger'; confirm?: { question: string; label: string };
}): VNode {
  return html`<button type="button" class=${variant ? `button ${variant}` : 'button'} data-tool=${tool} data-arguments=${JSON.stringify(args)}
    data-confirm=${confirm?.question} data-confirm-label=${confirm?.label} hidden>${children}</button>`;
}

/**
 * What a person may do from the card: only what the credential may call, only while it makes
 * sense. In Test, once a buyer started paying, what their money could do; a link not yet paid
 * for, its cancel.
 */
function Controls({ payment, viewer }: { payment: CardPayment; viewer: CardViewer }): VNode | null {
  const simulable = !payment.livemode && payment.started_at !== null && PAYABLE.has(payment.status) && viewer.mayCall(SIMULATE_TOOL);
  const cancelable = payment.source === 'payment_link' && payment.status === 'open' && payment.canceled_at === null && viewer.mayCall(CANCEL_TOOL);
  const buttons = [
    ...(!simulable ? [] : [
      ToolButton({ tool: SIMULATE_TOOL, args: { id: payment.id, outcome: 'paid' }, children: 'Test: the full amount arrives' }),
      ToolButton({ tool: SIMULATE_TOOL, args: { id: payment.id, outcome: 'underpaid' }, children: 'Test: less than asked arrives' }),
    ]),
    ...(cancelable
      ? [ToolButton({
        tool: CANCEL_TOOL, args: { id: payment.id }, children: 'Cancel the link', variant: 'danger',
        confirm: { question: 'Cancel this link? Nobody can start paying it after that; it cannot be undone.', label: 'Yes, cancel the link' },
      })]
      : []),
  ];
  if (buttons.length === 0) return null;
  return html`<section class="card-controls" aria-labelledby="controls-heading">
    <h2 id="controls-heading">Act on it</h2>
    <p class="card-actions">${buttons}</p>
    <p class="card-said" data-said="" role="status"></p>
  </section>`;
}

/** Every field of a payment the card shows, in one order: with the viewer's, what tells one card from another. */
const SHOWN = ['id', 'livemode', 'source', 'kindName', 'status', 'amount', 'currency', 'description', 'customer_name', 'memo', 'value_coin', 'coin',
  'merchant_received', 'hold_reason', 'hold_acceptable', 'paid_at', 'expires_at', 'canceled_at', 'started_at', 'url'] as const;
// A field the card shows but SHOWN misses would let a changed payment keep its old card: this fails to compile then.
const everyFieldShown: Exclude<keyof CardPayment, (typeof SHOWN)[number]> extends never ? true : never = true;
void everyFieldShown;

/** The payment cards made lately, by what they show: a card kept live is made again on every wait, alike until its payment changes. */
const recentCards = new Map<string, Card>();
const RECENT_CARDS = 500;

/** A payment link's, a checkout session's or any payment's card: what is paid, its status and how to pay it. */
export function paymentCard(payment: CardPayment, viewer: CardViewer): Card {
  const key = JSON.stringify([...SHOWN.map((field) => payment[field] ?? null), viewer.business, viewer.livemode, ...PAYMENT_CARD_TOOLS.map((tool) => viewer.mayCall(tool))]);
  const known = recentCards.get(key);
  if (known !== undefined) {
    // Most recently used last: the oldest is the first to go.
    recentCards.delete(key);
    recentCards.set(key, known);
    return known;
  }
  const card = makePaymentCard(payment, viewer);
  recentCards.set(key, card);
  if (recentCards.size > RECENT_CARDS) recentCards.delete(recentCards.keys().next().value!);
  return card;
}

function makePaymentCard(payment: CardPayment, viewer: CardViewer): Card {
  const held = payment.status === 'held';
  const arrived = payment.value_coin === null ? null : coinAmount(payment.value_coin, payment.coin);
  const node = html`<article class="payment-card" data-status=${payment.status} aria-labelledby="card-title">
    ${Head({ viewer, kind: payment.kindName ?? sourceName(payment.source) })}
    <h1 id="card-title">${payment.description}</h1>
    <p class="card-amount">${Money({ amount: payment.amount, currency: payment.currency })}</p>
    <p class="card-status">${PaymentBadge({ status: payment.status, canceled: payment.canceled_at !== null })}</p>
    ${held && Notice({ tone: 'warning', children: html`<p><strong>${FACT.heldBecause}</strong></p>
      <p>${payment.hold_reason ?? 'A check did not pass.'}</p>
      ${arrived && html`<p>What arrived: ${arrived}.</p>`}
      <p>${payment.hold_acceptable ? 'The business can accept it as paid in the dashboard.' : 'It cannot be accepted as paid: the money did not reach the business.'}</p>`,
    })}
    <dl class="facts" aria-label="The payment">
      ${payment.customer_name && Fact({ name: 'For', children: payment.customer_name })}
      ${payment.memo && Fact({ name: 'Note to the payer', children: payment.memo })}
      ${Fact({ name: FACT.id, children: html`<code>${payment.id}</code>` })}
      ${payment.paid_at !== null && Fact({ name: FACT.paid, children: Time({ at: new Date(payment.paid_at * 1000) }) })}
      ${!held && arrived && Fact({ name: FACT.arrived, children: arrived })}
      ${payment.merchant_received !== null && Fact({ name: 'Reached the business', children: coinAmount(payment.merchant_received, payment.coin) })}
      ${PAYABLE.has(payment.status) && Fact({ name: FACT.expires, children: Time({ at: new Date(payment.expires_at * 1000) }) })}
      ${payment.canceled_at !== null && Fact({ name: FACT.canceled, children: Time({ at: new Date(payment.canceled_at * 1000) }) })}
    </dl>
    ${PayerAddress({ url: payment.url, payable: PAYABLE.has(payment.status) && payment.canceled_at === null })}
    ${Controls({ payment, viewer })}
    <p class="card-live muted" data-live="" hidden></p>
  </article>`;
  const live = mayChange(payment) && viewer.mayCall(WAIT_TOOL);
  return { kind: 'payment', html: render(node), wait: live ? { id: payment.id, status: payment.status } : null };
}

/** A checkout's card: what it sells and its page (a checkout has many payments, so nothing to wait on). */
export function checkoutCard(checkout: CheckoutOut, viewer: CardViewer): Card {
  const node = html`<article class="payment-card" data-status=${checkout.active ? 'active' : 'deleted'} aria-labelledby="card-title">
    ${Head({ viewer, kind: checkoutKindName(checkout.kind) })}
    <h1 id="card-title">${checkout.name}</h1>
    ${checkout.description && html`<p>${checkout.description}</p>`}
    <p class="card-amount">${checkout.plans.length > 0 ? 'From ' : ''}${Money({ amount: checkout.amount, currency: checkout.currency })}</p>
    <p class="card-status">${checkout.active ? StatusBadge({ label: 'Active', tone: 'success', status: 'active' }) : StatusBadge({ label: 'Deleted', tone: 'neutral', status: 'deleted' })}</p>
    <dl class="facts" aria-label="The checkout">${Fact({ name: FACT.id, children: html`<code>${checkout.id}</code>` })}</dl>
    ${PayerAddress({ url: checkout.url, payable: checkout.active })}
  </article>`;
  return { kind: 'checkout', html: render(node), wait: null };
}

/** A call that waits for a person: what it asked, why, and the button that opens the approval page in the browser. */
export function approvalCard(approval: AgentApprovalOut, url: string, viewer: CardViewer): Card {
  const amount = approval.amount !== null && approval.currency !== null ? `${approval.amount} ${approval.currency}` : null;
  const description = typeof approval.arguments.description === 'string' ? approval.arguments.description : typeof approval.arguments.name === 'string' ? approval.arguments.name : null;
  const node = html`<article class="payment-card" data-status="approval_required" aria-labelledby="card-title">
    ${Head({ viewer, kind: 'Needs a person\'s approval' })}
    <h1 id="card-title">${operationName(approval.operation)}${amount && `: ${amount}`}</h1>
    ${description && html`<p>${description}</p>`}
    ${Notice({ tone: 'warning', children: html`<p>Nothing was done yet. It needs a person who manages agents in ${viewer.business} because: ${approval.reasons.join('; ')}.</p>` })}
    <p class="card-actions"><a class="button primary" href=${url} data-open-link="">Open the approval page</a></p>
    <p class="muted">The page opens in your browser. Once a person approves it there, ask the agent to try again.</p>
  </article>`;
  return { kind: 'approval', html: render(node), wait: null };
}

/** A tool's refusal, in its words (a hostile value in it is text like any other). */
export function refusalCard(message: string, viewer: CardViewer): Card {
  const node = html`<article class="payment-card" data-status="error" aria-labelledby="card-title">
    ${Head({ viewer, kind: 'Not done' })}
    <h1 id="card-title">The service refused this</h1>
    ${Notice({ tone: 'error', children: message })}
  </article>`;
  return { kind: 'refusal', html: render(node), wait: null };
}
