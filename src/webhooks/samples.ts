import { HOUR, MINUTE, unixSeconds } from '../core/clock.ts';
import type { CustomerRow, OrderRow, PaymentRow, PaymentStatus } from '../db/schema.ts';
import { eventBody } from '../events/record.ts';
import { PING, type PaymentEventType } from '../events/types.ts';

// Test sends (spec 6.3.5): a ping, or a made-up payment event, the same shape as a real one:
// payment with metadata.sample = true, order ord_sample with two items, customer cus_sample.
// None of them exists in any account.

const SAMPLE_ADDRESS = { name: 'Sam Sample', line1: '1 Sample Street', line2: null, city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };

/** The status, and the columns beside it, that each event leaves a payment with. */
const AFTER: Record<PaymentEventType, { status: PaymentStatus; paid?: boolean; settled?: boolean; hold?: boolean; canceled?: boolean }> = {
  'payment.started': { status: 'open' },
  'payment.paid': { status: 'paid', paid: true },
  'payment.held': { status: 'held', hold: true },
  'payment.updated': { status: 'paid', paid: true, settled: true },
  'payment.failed': { status: 'failed' },
  'payment.expired': { status: 'expired' },
  'payment.canceled': { status: 'expired', canceled: true },
};

function sampleRows(type: PaymentEventType, livemode: boolean, now: Date): { payment: PaymentRow; order: OrderRow; customer: CustomerRow } {
  const after = AFTER[type];
  const created = new Date(now.getTime() - 10 * MINUTE);
  const customer: CustomerRow = {
    id: 'cus_sample', business_id: 'sample', livemode, email: 'sam@example.com', name: 'Sam Sample', phone: '+15555550100',
    shipping_address: SAMPLE_ADDRESS, billing_address: SAMPLE_ADDRESS, store_accounts: [], erased: false, created_at: created, details_at: created,
  };
  const order: OrderRow = {
    id: 'ord_sample', business_id: 'sample', livemode, number: 1001, customer_id: customer.id, source: 'api', checkout_id: null, store: null,
    status: after.status, fulfillment: 'none', fulfilled_at: null, currency: 'USD', subtotal_minor: 4500, discount_minor: 0, discount_code: null,
    shipping_minor: 500, shipping_method: 'Standard', tax_minor: 0, total_minor: 5000, customer_name: customer.name, customer_phone: customer.phone,
    ship_to: SAMPLE_ADDRESS, bill_to: SAMPLE_ADDRESS,
    items: [
      { name: 'Sample mug', variant: 'Blue', sku: 'MUG-BLUE', quantity: 2, unit_amount_minor: 1500, amount_minor: 3000 },
      { name: 'Sample coffee', variant: '250 g', sku: 'COF-250', quantity: 1, unit_amount_minor: 1500, amount_minor: 1500 },
    ],
    created_at: created, updated_at: now, paid_at: after.paid ? now : null, store_order_key: null, store_customer_id: null,
  };
  const payment: PaymentRow = {
    id: 'pay_sample', tracking_token: null, business_id: 'sample', livemode, source: 'api', order_id: order.id, checkout_id: null, status: after.status,
    amount_minor: 5000, currency: 'USD', description: 'Sample payment', reference: 'sample', metadata: { sample: true },
    customer_email: customer.email, customer_name: null, memo: null, success_url: null, collect: null,
    created_at: created, expires_at: new Date(created.getTime() + 24 * HOUR), started_at: created, provider_reached_at: null,
    paid_at: after.paid ? now : null, canceled_at: after.canceled ? now : null, routing: null,
    provider: null, provider_name: null, method: 'crypto', network: 'ethereum',
    deposit_address: '0x0000000000000000000000000000000000005a4d', deposit_index: null, payout_wallet: '0x0000000000000000000000000000000000000001', fee_bps: 100,
    usd_value_minor: 5000, value_coin: after.paid || after.hold ? (after.hold ? '40.000000' : '50.000000') : null, coin: after.paid || after.hold ? 'USDC' : null,
    merchant_received: after.settled ? '49.500000' : null, received_minor: after.paid ? 5000 : after.hold ? 4000 : null,
    hold_reason: after.hold ? 'underpaid' : null, hold_acceptable: !!after.hold,
    txid_in: after.paid || after.hold ? '0x5a4d000000000000000000000000000000000000000000000000000000000001' : null,
    txid_out: after.settled ? '0x5a4d000000000000000000000000000000000000000000000000000000000002' : null,
    txid_in_log_index: null, forwarded_net: after.settled ? '49.500000' : null,
    plan_label: null, payer_language: null, remainder_of: null, updated_at: now,
  };
  return { payment, order, customer };
}

/** The body of a test send: a ping, or a sample of a payment event. */
export function sampleEventBody(eventId: string, type: PaymentEventType | typeof PING, livemode: boolean, now: Date, baseUrl: string): string {
  if (type === PING) {
    return JSON.stringify({ id: eventId, type, created: unixSeconds(now), livemode, data: { payment: null, order: null, customer: null } });
  }
  const { payment, order, customer } = sampleRows(type, livemode, now);
  return eventBody(eventId, type, { payment, order, payments: [payment], customer }, { baseUrl, now });
}
