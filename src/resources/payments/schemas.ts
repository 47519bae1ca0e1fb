import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { formatAmount } from '../../core/money.ts';
import { createdRange, listParams, pageOf } from '../../core/pagination.ts';
import { coded } from '../../core/validation.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { metadataOut } from '../shared/fields.ts';
import { idInput } from '../shared/ids.ts';
import { payerUrl, trackingUrl } from '../shared/payer-urls.ts';
import { PAYMENT_STATUSES, readStatus } from '../shared/payment-status.ts';

// The API payment object: the facts of the webhook payment (spec 2.6) in snake_case with Unix
// seconds, plus the customer it belongs to.

export const PaymentIdInput = idInput('pay');

export const PAYMENT_SOURCES = ['api', 'checkout', 'payment_link'] as const;

export const ListPaymentsInput = z.object({
  ...listParams,
  status: z.enum(PAYMENT_STATUSES, coded('invalid_filter', `status must be one of ${PAYMENT_STATUSES.join(', ')}.`)).optional()
    .describe('Only payments in this status (an unpaid payment past expires_at counts as expired).'),
  reference: z.string(coded('invalid_filter', 'reference must be a string.')).optional().describe('Exact match on reference.'),
  source: z.enum(PAYMENT_SOURCES, coded('invalid_filter', 'source must be api, checkout or payment_link.')).optional()
    .describe('Only payments from this source: api (checkout sessions), checkout or payment_link.'),
  order_id: z.string(coded('invalid_filter', 'order_id must be a string.')).optional().describe('Only payments of this order (ord_…).'),
  customer_id: z.string(coded('invalid_filter', 'customer_id must be a string.')).optional().describe('Only payments of this customer (cus_…).'),
  ...createdRange,
});
export type ListPaymentsInput = z.output<typeof ListPaymentsInput>;

const seconds = (what: string) => z.number().int().describe(`${what}, Unix seconds.`);
const secondsOrNull = (what: string) => z.number().int().nullable().describe(`${what}, Unix seconds; null until it happens.`);

export const PaymentOut = z.object({
  id: z.string().describe('`pay_…`; a checkout session, payment link or checkout purchase shares its payment\'s id.'),
  object: z.literal('payment').describe('Always `payment`.'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  source: z.enum(PAYMENT_SOURCES).describe('Where the payment came from: `api` (a checkout session), `checkout` (a checkout page, pricing table or widget), `payment_link`.'),
  status: z.enum(PAYMENT_STATUSES).describe('`open`, `pending` (the buyer reached a card provider), `paid`, `held`, `failed` or `expired`; an unpaid payment past expires_at reads as `expired`.'),
  amount: z.string().describe('The price, a decimal string with two decimals such as "25.00".'),
  currency: z.string().describe('The price currency: USD, EUR, GBP, CAD or AUD.'),
  description: z.string().describe('What is being paid for, shown to the buyer.'),
  reference: z.string().nullable().describe('Your own id, as sent at creation.'),
  metadata: metadataOut.nullable().describe('Your key-value data as sent at session creation; null when none.'),
  customer_email: z.string().nullable().describe('The email the buyer entered or you sent, lowercased (any address can be typed; not an account identifier).'),
  customer_id: z.string().nullable().describe('`cus_…` of the order\'s customer; null until the buyer has given an email.'),
  order_id: z.string().nullable().describe('`ord_…` of the payment\'s order.'),
  checkout_id: z.string().nullable().describe('`chk_…` for checkout purchases; null otherwise.'),
  plan_label: z.string().nullable().describe('Pricing tables: the plan, option and price chosen; null otherwise.'),
  provider: z.string().nullable().describe('The card provider the buyer chose, such as `moonpay`; null when paid in crypto or not chosen yet.'),
  provider_name: z.string().nullable().describe('Display name of the provider, or coin and network for crypto.'),
  method: z.enum(['card', 'crypto']).describe('`card` or `crypto`.'),
  network: z.string().nullable().describe('Crypto only: the network the money arrived on; null for card.'),
  deposit_address: z.string().nullable().describe('The one-time address paid into; set when a Live payment starts; null in Test mode.'),
  payout_wallet: z.string().nullable().describe('The merchant wallet the payment is forwarded to, fixed at start.'),
  fee_bps: z.number().int().describe('The fee locked into the payment at start, in basis points of what arrives (150 = 1.5%).'),
  value_coin: z.string().nullable().describe('The amount that arrived at the deposit address, in `coin`; null until money arrives.'),
  coin: z.string().nullable().describe('What arrived, usually `polygon_usdc`; null until money arrives.'),
  merchant_received: z.string().nullable().describe('The amount forwarded to the merchant, in `coin`, six decimals; null until reported, never estimated.'),
  hold_reason: z.string().nullable().describe('Why the payment is held, in plain words; null unless held.'),
  hold_acceptable: z.boolean().describe('For a held payment: whether you can accept it as paid (false when the money went elsewhere).'),
  txid_in: z.string().nullable().describe('The transaction that delivered the money.'),
  txid_out: z.string().nullable().describe('The transaction that forwarded it to the merchant.'),
  customer_name: z.string().nullable().describe('Payment links: who it is for; null for other payments.'),
  memo: z.string().nullable().describe('Payment links: the note to the payer; null for other payments.'),
  tracking_url: z.string().nullable().describe('Payment links: the read-only status page without payer details; null for other payments.'),
  success_url: z.string().nullable().describe('Where the buyer lands after paying, with `{PAYMENT_ID}` and `{REFERENCE}` placeholders left in.'),
  url: z.string().describe('The page the buyer pays on.'),
  created: seconds('When the payment was created'),
  started_at: secondsOrNull('When the buyer started paying'),
  paid_at: secondsOrNull('When it became `paid`'),
  expires_at: seconds('When an unpaid payment expires (24 hours after creation for sessions, the chosen lifetime for links)'),
  canceled_at: secondsOrNull('Payment links: when you canceled it'),
}).describe('A payment: one attempt at paying, whatever created it (a checkout session, a payment link, a checkout purchase). The facts of the webhook payment in snake_case with Unix seconds.');
export type PaymentOut = z.infer<typeof PaymentOut>;
export const PaymentList = pageOf(PaymentOut, 'payments');

/** A payment row with its order's customer. */
export type PaymentWithCustomer = PaymentRow & { customer_id: string | null };

export function toPaymentOut(row: PaymentWithCustomer, baseUrl: string, now: Date): PaymentOut {
  const isLink = row.source === 'payment_link';
  return {
    id: row.id,
    object: 'payment',
    livemode: row.livemode,
    source: row.source,
    status: readStatus(row, now),
    amount: formatAmount(row.amount_minor),
    currency: row.currency,
    description: row.description,
    reference: row.reference,
    metadata: row.metadata,
    customer_email: row.customer_email,
    customer_id: row.customer_id,
    order_id: row.order_id,
    checkout_id: row.checkout_id,
    plan_label: row.plan_label,
    provider: row.provider,
    provider_name: row.provider_name,
    method: row.method,
    network: row.network,
    deposit_address: row.deposit_address,
    payout_wallet: row.payout_wallet,
    fee_bps: row.fee_bps ?? 0,
    value_coin: row.value_coin,
    coin: row.coin,
    merchant_received: row.merchant_received,
    hold_reason: row.hold_reason,
    hold_acceptable: row.hold_acceptable,
    txid_in: row.txid_in,
    txid_out: row.txid_out,
    customer_name: isLink ? row.customer_name : null,
    memo: isLink ? row.memo : null,
    tracking_url: isLink ? trackingUrl(baseUrl, row) : null,
    success_url: row.success_url,
    url: payerUrl(baseUrl, row),
    created: unixSeconds(row.created_at),
    started_at: unixSecondsOrNull(row.started_at),
    paid_at: unixSecondsOrNull(row.paid_at),
    expires_at: unixSeconds(row.expires_at),
    canceled_at: unixSecondsOrNull(row.canceled_at),
  };
}
