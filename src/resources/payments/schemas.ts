import { z } from 'zod';
import { unixSeconds, unixSecondsOrNull } from '../../core/clock.ts';
import { formatAmount } from '../../core/money.ts';
import { createdRange, listParams, pageOf } from '../../core/pagination.ts';
import { coded } from '../../core/validation.ts';
import type { PaymentRow } from '../../db/schema.ts';
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
  source: z.enum(PAYMENT_SOURCES, coded('invalid_filter', 'source must be api, checkout or payment_link.')).optional(),
  order_id: z.string(coded('invalid_filter', 'order_id must be a string.')).optional().describe('Only payments of this order.'),
  customer_id: z.string(coded('invalid_filter', 'customer_id must be a string.')).optional().describe('Only payments of this customer.'),
  ...createdRange,
});
export type ListPaymentsInput = z.output<typeof ListPaymentsInput>;

export const PaymentOut = z.object({
  id: z.string(),
  object: z.literal('payment'),
  livemode: z.boolean(),
  source: z.enum(PAYMENT_SOURCES),
  status: z.enum(PAYMENT_STATUSES),
  amount: z.string(),
  currency: z.string(),
  description: z.string(),
  reference: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  customer_email: z.string().nullable(),
  customer_id: z.string().nullable(),
  order_id: z.string().nullable(),
  checkout_id: z.string().nullable(),
  plan_label: z.string().nullable(),
  provider: z.string().nullable(),
  provider_name: z.string().nullable(),
  method: z.enum(['card', 'crypto']),
  network: z.string().nullable(),
  deposit_address: z.string().nullable(),
  payout_wallet: z.string().nullable(),
  fee_bps: z.number().int(),
  value_coin: z.string().nullable(),
  coin: z.string().nullable(),
  merchant_received: z.string().nullable(),
  hold_reason: z.string().nullable(),
  hold_acceptable: z.boolean(),
  txid_in: z.string().nullable(),
  txid_out: z.string().nullable(),
  customer_name: z.string().nullable(),
  memo: z.string().nullable(),
  tracking_url: z.string().nullable(),
  success_url: z.string().nullable(),
  url: z.string(),
  created: z.number().int(),
  started_at: z.number().int().nullable(),
  paid_at: z.number().int().nullable(),
  expires_at: z.number().int(),
  canceled_at: z.number().int().nullable(),
});
export type PaymentOut = z.infer<typeof PaymentOut>;
export const PaymentList = pageOf(PaymentOut);

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
