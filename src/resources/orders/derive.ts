import type { OrderItem, OrderRow, PaymentRow, PaymentStatus } from '../../db/schema.ts';
import { readStatus } from '../shared/payment-status.ts';

// What an order's payments make of it (spec 2.7, 3 rule 7): the order follows all of its
// payments, so a paid attempt decides over a held one, and a held one over the latest.

export interface OrderFacts {
  status: PaymentStatus;
  needsReview: boolean;
  /** The payment that decides the status: the paid one, else the held one, else the latest. */
  paymentId: string | null;
  /** Paid payments in full, plus what arrived on held ones (part-payments), in minor units. */
  amountPaidMinor: number;
  /** What reached the merchant's wallet, six decimals; null until reported. */
  received: string | null;
  reference: string | null;
  attemptCount: number;
  paidAt: Date | null;
}

/** Payments oldest first. */
export function deriveOrder(payments: readonly PaymentRow[], now: Date): OrderFacts {
  const sorted = [...payments].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
  const latest = sorted.at(-1);
  const paid = sorted.find((p) => p.status === 'paid');
  const held = sorted.find((p) => p.status === 'held');
  const deciding = paid ?? held ?? latest;
  const status: PaymentStatus = deciding ? readStatus(deciding, now) : 'open';
  let amountPaidMinor = 0;
  let receivedMicros: bigint | null = null;
  for (const p of sorted) {
    if (p.status === 'paid') amountPaidMinor += p.amount_minor;
    else if (p.status === 'held') amountPaidMinor += p.received_minor ?? 0;
    // What the books say reached the merchant (every forward, held and extra ones too); a payment
    // settled before the books (or by a Test simulation) by its merchant_received.
    const reached = p.forwarded_net ?? p.merchant_received;
    if (reached !== null) receivedMicros = (receivedMicros ?? 0n) + toMicros(reached);
  }
  const paidTimes = sorted.map((p) => p.paid_at).filter((d): d is Date => d !== null).sort((a, b) => a.getTime() - b.getTime());
  return {
    status,
    needsReview: status === 'held',
    paymentId: deciding?.id ?? null,
    amountPaidMinor,
    received: receivedMicros === null ? null : fromMicros(receivedMicros),
    reference: latest?.reference ?? null,
    attemptCount: sorted.length,
    paidAt: paidTimes[0] ?? null,
  };
}

/** "12.345600" -> 12345600n; coin amounts are exact six-decimal strings. */
export function toMicros(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  const negative = whole.startsWith('-');
  const micros = BigInt(whole.replace('-', '')) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return negative ? -micros : micros;
}

export function fromMicros(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  return `${negative ? '-' : ''}${abs / 1_000_000n}.${String(abs % 1_000_000n).padStart(6, '0')}`;
}

export function summaryOf(items: ReadonlyArray<{ name: string; variant?: string | null }>): string {
  const first = items[0];
  if (!first) return '';
  const name = first.variant ? `${first.name} (${first.variant})` : first.name;
  return items.length > 1 ? `${name} and ${items.length - 1} more` : name;
}

export function unitCount(items: readonly OrderItem[]): number {
  return items.reduce((sum, item) => sum + item.quantity, 0);
}

export function displayNumber(order: Pick<OrderRow, 'number' | 'store'>): string {
  const storeNumber = order.store?.order_number;
  return typeof storeNumber === 'string' && storeNumber !== '' ? storeNumber : String(order.number);
}
