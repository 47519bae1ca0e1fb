import type { Insertable } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import { newId } from '../../core/ids.ts';
import type { PaymentRow, PaymentsTable } from '../../db/schema.ts';

export type PaymentFields = Pick<PaymentRow, 'source' | 'order_id' | 'amount_minor' | 'currency' | 'description' | 'expires_at'>
  & Partial<Omit<PaymentRow, 'business_id' | 'livemode' | 'created_at' | 'updated_at' | 'status'>>;

/**
 * A new open payment in the caller's mode, as the row it will be once inserted: the verb can
 * answer from it without reading the row back.
 */
export function newPayment(principal: Principal, fields: PaymentFields, now: Date): PaymentRow {
  return {
    id: newId('pay'),
    business_id: principal.businessId,
    livemode: principal.livemode,
    status: 'open',
    checkout_id: null,
    reference: null,
    metadata: null,
    customer_email: null,
    customer_name: null,
    memo: null,
    success_url: null,
    collect: null,
    started_at: null,
    provider_reached_at: null,
    paid_at: null,
    canceled_at: null,
    deposit_index: null,
    routing: null,
    provider: null,
    provider_name: null,
    method: 'card',
    network: null,
    deposit_address: null,
    payout_wallet: null,
    fee_bps: null,
    usd_value_minor: null,
    value_coin: null,
    coin: null,
    merchant_received: null,
    received_minor: null,
    hold_reason: null,
    hold_acceptable: false,
    txid_in: null,
    txid_in_log_index: null,
    txid_out: null,
    forwarded_net: null,
    plan_label: null,
    payer_language: null,
    remainder_of: null,
    tracking_token: fields.source === 'payment_link' ? newId('trk') : null,
    ...fields,
    created_at: now,
    updated_at: now,
  };
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** The row as insert values (JSON columns as text). */
export function paymentValues(row: PaymentRow): Insertable<PaymentsTable> {
  return { ...row, metadata: json(row.metadata), collect: json(row.collect), routing: json(row.routing) };
}
