import type { VNode } from 'preact';
import { COIN_NAMES } from '../core/networks-config.ts';
import { StatusBadge, type StatusTone } from './components/status-badge.ts';

// The words people read for a payment's codes (its status, where it came from, the coin that
// arrived, what an agent asked to do), in one place for every surface that shows a payment: the
// dashboard (dashboard/wording.ts re-exports these and checks them against the codes' own lists)
// and the payment card agents' hosts show (mcp/apps). A code unknown here is shown readably, never raw.

/** A code no table names (an old row's): its words, capitalised ("removed_gone" → "Removed gone"). */
function readable(code: string): string {
  const words = code.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A code's name in `table`, or its words when the table has none. */
export const named = <T extends string>(table: Record<T, string>, code: string): string =>
  (Object.hasOwn(table, code) ? table[code as T] : readable(code));

export type Badge = readonly [label: string, tone: StatusTone];

/** A payment's statuses (spec 3), as dashboard/wording.ts checks against the service's list. */
export type PaymentStatusCode = 'open' | 'pending' | 'paid' | 'held' | 'failed' | 'expired';

export const PAYMENT_STATUS_BADGES: Record<PaymentStatusCode, Badge> = {
  open: ['Open', 'info'],
  pending: ['Pending', 'warning'],
  paid: ['Paid', 'success'],
  held: ['Held', 'warning'],
  failed: ['Failed', 'danger'],
  expired: ['Expired', 'neutral'],
};

export const CANCELED_BADGE: Badge = ['Canceled', 'neutral'];

/**
 * The names of a payment's facts, as the dashboard's payment page and the agents' payment card show
 * them. Not what reached the merchant: the dashboard, the merchant's own, says "Reached you"; the
 * card, read in a chat, "Reached the business", as its other sentences do.
 */
export const PAYMENT_FACT_NAMES = {
  id: 'Id',
  paid: 'Paid',
  expires: 'Expires',
  canceled: 'Canceled',
  arrived: 'Arrived',
  heldBecause: 'Held because',
} as const;

export const badge = ([label, tone]: Badge, status: string): VNode => StatusBadge({ label, tone, status });

/** A payment's, an order's or a payment link's status (a link canceled before it was paid says so). */
export function PaymentBadge({ status, canceled = false }: { status: string; canceled?: boolean }): VNode {
  if (canceled && status !== 'paid' && status !== 'held') return badge(CANCELED_BADGE, 'canceled');
  return badge(Object.hasOwn(PAYMENT_STATUS_BADGES, status) ? PAYMENT_STATUS_BADGES[status as PaymentStatusCode] : [readable(status), 'neutral'], status);
}

/** Where a payment came from (its `source`). */
export const SOURCE_NAMES = { api: 'Checkout session (API)', checkout: 'Checkout', payment_link: 'Payment link' } as const satisfies Record<string, string>;
export const sourceName = (source: string): string => named(SOURCE_NAMES, source);

/** What a checkout is (its `kind`). */
export const CHECKOUT_KIND_NAMES = { page: 'Checkout page', pricing_table: 'Pricing table', widget: 'Widget' } as const satisfies Record<string, string>;
export const checkoutKindName = (kind: string): string => named(CHECKOUT_KIND_NAMES, kind);

export const coinName = (coin: string): string => named(COIN_NAMES, coin);

/** A coin amount as people read it: "103.680000" and "polygon_usdc" → "103.68 USDC on Polygon" (at least two decimals, no trailing zeros beyond). */
export function coinAmount(value: string, coin: string | null): string {
  const [whole, fraction = ''] = value.split('.');
  const kept = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${kept} ${coin === null ? '' : coinName(coin)}`.trim();
}

/** The operations a connected agent asks a person to approve, as the person reads them. */
const OPERATION_NAMES: Record<string, string> = {
  create_payment_link: 'Create a payment link',
  cancel_payment_link: 'Cancel a payment link',
  create_checkout: 'Create a checkout page',
  create_checkout_session: 'Create a checkout session',
  start_checkout_session: 'Start a checkout session',
  update_order: 'Update an order',
  report_order_event: 'Report an order\'s cancellation or refund',
  simulate_payment: 'Simulate a Test payment',
};

export const operationName = (operation: string): string => named(OPERATION_NAMES, operation);
