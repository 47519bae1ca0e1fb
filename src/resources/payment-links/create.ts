import { DAY } from '../../core/clock.ts';
import type { OperationContext } from '../../core/context.ts';
import { newId } from '../../core/ids.ts';
import { recordCustomer } from '../customers/record.ts';
import { insertOrder } from '../orders/insert.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { requireHttpsInLive } from '../shared/fields.ts';
import { toPaymentLinkOut, type CreatePaymentLinkInput, type PaymentLinkOut } from './schemas.ts';

/**
 * Creates a one-off payment link in the caller's mode. The link is a payment (source
 * payment_link) with its own order of one line; an email given now finds or creates the customer.
 */
export async function createPaymentLink(ctx: OperationContext, input: CreatePaymentLinkInput): Promise<PaymentLinkOut> {
  const { principal } = ctx;
  assertCanTakePayments(principal, 'payment_links');
  requireHttpsInLive(principal.livemode, input.success_url, 'success_url');
  const now = ctx.clock.now();

  const row = await ctx.db.transaction().execute(async (trx) => {
    const customerId = input.customer_email
      ? await recordCustomer(trx, principal, {
          email: input.customer_email,
          name: input.customer_name,
          phone: input.customer_phone,
          shipping_address: input.shipping_address,
          billing_address: input.billing_address,
        }, now)
      : null;
    const orderId = await insertOrder(trx, principal, {
      customer_id: customerId,
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
    }, now);
    return trx
      .insertInto('payments')
      .values({
        id: newId('pay'),
        business_id: principal.businessId,
        livemode: principal.livemode,
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
        collect: input.collect ? JSON.stringify(input.collect) : null,
        created_at: now,
        expires_at: new Date(now.getTime() + input.expires_in_days * DAY),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return toPaymentLinkOut(row, ctx.config.baseUrl, now);
}
