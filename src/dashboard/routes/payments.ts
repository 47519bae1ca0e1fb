import type { FastifyInstance } from 'fastify';
import { acceptHeldPayment } from '../../resources/payments/accept.ts';
import { askForRemainder } from '../../resources/payments/remainder.ts';
import { PaymentList, PaymentOut } from '../../resources/payments/schemas.ts';
import { readPaymentTimeline } from '../../resources/payments/timeline.ts';
import { createdRangeOf, cursorOf, filtersOf, given, readFiltered } from '../filters.ts';
import { acceptable, paymentAcceptPage, paymentPage } from '../pages/payment.ts';
import { PAYMENT_FILTERS, paymentsPage } from '../pages/payments.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { frameOf, redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** Payments: the list, one payment with its timeline, accepting a held one (a confirmation step first) or asking for its rest. */
export function registerPayments(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const listPayments = operations.get('list_payments', PaymentList);
  const retrievePayment = operations.get('retrieve_payment', PaymentOut);
  const idOf = (params: unknown) => (params as { payment: string }).payment;

  scope.get(areaRoute('payments'), async (request, reply) => {
    const ctx = await requests.page(request);
    const filters = filtersOf(request.query, PAYMENT_FILTERS);
    const startingAfter = cursorOf(request.query);
    const { list: payments, refused, status } = await readFiltered(() => perform(ctx, listPayments, {
      ...given(filters, ['status', 'reference', 'customer_id']), ...createdRangeOf(filters), ...(startingAfter ? { starting_after: startingAfter } : {}),
    }));
    return sendPage(reply, status, paymentsPage({ ...frameOf(ctx), payments, filters, later: startingAfter !== undefined, refused }), ctx.session);
  });

  scope.get(areaRoute('payments', '/:payment'), async (request, reply) => {
    const ctx = await requests.page(request);
    const timeline = await readPaymentTimeline.run(ctx, { id: idOf(request.params) });
    const query = request.query as { accepted?: unknown; rest?: unknown };
    const accepted = query.accepted === '1' && timeline.payment.status === 'paid';
    const restAsked = query.rest === 'asked' && timeline.rest?.remainder !== null;
    return sendPage(reply, 200, paymentPage({ ...frameOf(ctx), timeline, accepted, restAsked }), ctx.session);
  });

  scope.get(areaRoute('payments', '/:payment/accept'), async (request, reply) => {
    const ctx = await requests.page(request);
    const frame = frameOf(ctx);
    const { payment, rest } = await readPaymentTimeline.run(ctx, { id: idOf(request.params) });
    // Nothing to confirm (no longer held, its rest asked for, or not for this person): the payment as it is.
    if (!acceptable(payment, frame.role, rest)) return redirect(reply, objectPath(ctx.principal.businessId, 'payments', ctx.mode, payment.id));
    return sendPage(reply, 200, paymentAcceptPage({ ...frame, payment, rest }), ctx.session);
  });

  scope.post(areaRoute('payments', '/:payment/accept'), async (request, reply) => {
    const { ctx } = await requests.form(request);
    const payment = await acceptHeldPayment.run(ctx, { id: idOf(request.params) });
    return redirect(reply, `${objectPath(ctx.principal.businessId, 'payments', ctx.mode, payment.id)}?accepted=1`);
  });

  // Asking for the rest of a held underpayment (docs/remainders.md): back to the payment, its remainder's address shown.
  scope.post(areaRoute('payments', '/:payment/remainder'), async (request, reply) => {
    const { ctx } = await requests.form(request);
    const id = idOf(request.params);
    await askForRemainder.run(ctx, { id });
    return redirect(reply, `${objectPath(ctx.principal.businessId, 'payments', ctx.mode, id)}?rest=asked`);
  });
}
