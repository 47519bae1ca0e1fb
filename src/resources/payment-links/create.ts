import { DAY } from '../../core/clock.ts';
import type { OperationContext } from '../../verbs/context.ts';
import { newId } from '../../core/ids.ts';
import { newPayment } from '../payments/insert.ts';
import { insertPaymentWithOrder } from '../payments/create-with-order.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { requireHttpsInLive } from '../shared/fields.ts';
import { toPaymentLinkOut, type CreatePaymentLinkInput, type PaymentLinkOut } from './schemas.ts';

/**
 * Creates a one-off payment link in the caller's mode. The link is a payment (source
 * payment_link) with its own order of one line; an email given now finds or creates the customer.
 */
export async function createPaymentLink(ctx: OperationContext, input: CreatePaymentLinkInput): Promise<PaymentLinkOut> {
  const { principal } = ctx;
  requireHttpsInLive(principal.livemode, input.success_url, 'success_url');
  assertCanTakePayments(principal, 'payment_links');
  const now = ctx.clock.now();

  const orderId = newId('ord');
  const payment = newPayment(principal, {
    source: 'payment_link',
    order_id: orderId,
    amount_minor: input.amount,
    currency: input.currency,
    description: input.description,
    reference: input.reference ?? null,
    customer_email: input.customer_email ?? null,
    customer_name: input.customer_name ?? null,
    memo: input.memo ?? null,
    success_url: input.success_url ?? null,
    collect: input.collect,
    fee_bps: principal.business.fee_bps,
    expires_at: new Date(now.getTime() + input.expires_in_days * DAY),
  }, now);
  await insertPaymentWithOrder(ctx.db, principal, {
    payment,
    order: {
      source: 'payment_link',
      currency: input.currency,
      subtotal_minor: input.amount,
      total_minor: input.amount,
      customer_name: input.customer_name ?? null,
      customer_phone: input.customer_phone ?? null,
      ship_to: input.shipping_address ? JSON.stringify(input.shipping_address) : null,
      bill_to: input.billing_address ? JSON.stringify(input.billing_address) : null,
      items: JSON.stringify([{
        name: input.description, variant: null, sku: null, quantity: 1,
        unit_amount_minor: input.amount, amount_minor: input.amount,
      }]),
    },
    customer: input.customer_email
      ? { email: input.customer_email, name: input.customer_name, phone: input.customer_phone,
          shipping_address: input.shipping_address, billing_address: input.billing_address }
      : null,
    now,
  });
  return toPaymentLinkOut(payment, ctx.config.baseUrl, now);
}
