import { sql } from 'kysely';
import type { OperationContext } from '../../core/context.ts';
import { ApiError } from '../../core/errors.ts';
import { linkStoreAccount, upsertCustomer } from '../customers/record.ts';
import { applyMove, cannotMove } from '../payments/machine.ts';
import { getPayment } from '../payments/queries.ts';
import { readStatus } from '../payments/status.ts';
import { usdValueMinor } from '../payments/usd-value.ts';
import { offerProviders } from '../providers/routing.ts';
import { assertCanTakePayments } from '../shared/business-rules.ts';
import { DEFAULT_ROUTING, toCheckoutSessionOut, type StartCheckoutSessionInput, type StartedCheckoutSessionOut } from './schemas.ts';

/**
 * The buyer gives an email and is given ways to pay (spec 3, "open -> open"): the customer is
 * found or created and the order moves to them (spec 2.3 rules 2, 4, 5); fee, USD value and
 * payout wallet are locked; a Live payment gets its deposit address; payment.started is written.
 * Works for any unpaid payment of the caller: sessions, payment links, checkout purchases.
 */
export async function startCheckoutSession(ctx: OperationContext, input: StartCheckoutSessionInput): Promise<StartedCheckoutSessionOut> {
  const { principal } = ctx;
  assertCanTakePayments(principal);
  const now = ctx.clock.now();
  const { business } = principal;

  const { row, country } = await ctx.db.transaction().execute(async (trx) => {
    // Lock first: two starts of one session apply one after the other.
    await trx.selectFrom('payments').select('id').where('id', '=', input.id)
      .where('business_id', '=', principal.businessId).where('livemode', '=', principal.livemode).forUpdate().execute();
    const payment = await getPayment(trx, principal, input.id, 'checkout session');
    if (readStatus(payment, now) !== 'open') throw cannotMove(payment, now, 'be started');
    const email = input.email ?? payment.customer_email;
    if (!email) throw new ApiError('invalid_email', 'email is required to start this session.', 'email');
    const order = await trx.selectFrom('orders').selectAll().where('id', '=', payment.order_id ?? '').forUpdate().executeTakeFirstOrThrow();

    // Details given now win; otherwise those the order kept while no email was known (rule 4).
    const details = {
      email,
      name: input.name ?? order.customer_name,
      phone: input.phone ?? order.customer_phone,
      shipping_address: input.shipping_address ?? order.ship_to,
      billing_address: input.billing_address ?? order.bill_to,
    };
    const customer = await upsertCustomer(trx, principal, details, now).executeTakeFirstOrThrow();
    // The order belongs to whoever starts paying (rule 5), with the details they gave.
    await trx.updateTable('orders').set({
      customer_id: customer.id,
      customer_name: details.name,
      customer_phone: details.phone,
      ship_to: details.shipping_address ? JSON.stringify(details.shipping_address) : null,
      bill_to: details.billing_address ? JSON.stringify(details.billing_address) : null,
      updated_at: now,
    }).where('id', '=', order.id).execute();
    if (order.store_customer_id && order.store) await linkStoreAccount(trx, order.id, order.store, order.store_customer_id);

    const depositAddress = payment.deposit_address ?? (principal.livemode
      ? ctx.deposits.address(Number((await sql<{ index: string }>`SELECT nextval('deposit_address_index') AS index`.execute(trx)).rows[0]?.index))
      : null);
    const started = await applyMove(trx, ctx, payment.id, 'start', {
      set: {
        customer_email: email,
        started_at: payment.started_at ?? now,
        fee_bps: business.fee_bps,
        payout_wallet: business.payout_wallet,
        usd_value_minor: await usdValueMinor(trx, payment.currency, payment.amount_minor),
        deposit_address: depositAddress,
      },
    });
    if (!started) throw cannotMove(payment, now, 'be started');
    const buyerCountry = input.country ?? details.billing_address?.country ?? details.shipping_address?.country ?? null;
    return { row: { ...started, customer_id: customer.id }, country: buyerCountry };
  });

  const checkout = row.checkout_id
    ? await ctx.db.selectFrom('checkouts').select(['crypto', 'routing']).where('id', '=', row.checkout_id).executeTakeFirst()
    : undefined;
  const routing = checkout?.routing ?? row.routing ?? { ...DEFAULT_ROUTING };
  return {
    ...toCheckoutSessionOut(row, ctx.config.baseUrl, now),
    card_providers: offerProviders(routing, { currency: row.currency, usdValueMinor: row.usd_value_minor ?? 0, country }),
    crypto: business.crypto_enabled && (checkout?.crypto ?? true),
  };
}
