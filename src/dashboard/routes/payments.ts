import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { exportBooks } from '../../resources/ledger/export.ts';
import { acceptHeldPayment } from '../../resources/payments/accept.ts';
import { askForRemainder } from '../../resources/payments/remainder.ts';
import { PaymentList, PaymentOut } from '../../resources/payments/schemas.ts';
import { TransferList } from '../../resources/ledger/schemas.ts';
import { readPaymentTimeline } from '../../resources/payments/timeline.ts';
import { createdRangeOf, cursorOf, filtersOf, given, readFiltered } from '../filters.ts';
import { acceptable, paymentAcceptPage, paymentPage } from '../pages/payment.ts';
import { booksRangeOf, PAYMENT_FILTERS, paymentsPage } from '../pages/payments.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { frameOf, redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** Payments: the list, one payment with its timeline, accepting a held one (a confirmation step first) or asking for its rest. */
export function registerPayments(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const listPayments = operations.get('list_payments', PaymentList);
  const retrievePayment = operations.get('retrieve_payment', PaymentOut);
  const listTransfers = operations.get('list_payment_transfers', TransferList);
  const idOf = (params: unknown) => (params as { payment: string }).payment;

  const listPage = async (request: Parameters<typeof requests.page>[0], booksRefused?: string) => {
    const ctx = await requests.page(request);
    const filters = filtersOf(request.query, PAYMENT_FILTERS);
    const startingAfter = cursorOf(request.query);
    const { list: payments, refused, status } = await readFiltered(() => perform(ctx, listPayments, {
      ...given(filters, ['status', 'reference', 'customer_id']), ...createdRangeOf(filters), ...(startingAfter ? { starting_after: startingAfter } : {}),
    }));
    const books = booksRangeOf(request.query, ctx.clock.now());
    return { ctx, status: booksRefused === undefined ? status : 400, page: paymentsPage({ ...frameOf(ctx), payments, filters, later: startingAfter !== undefined, refused, books, booksRefused }) };
  };

  scope.get(areaRoute('payments'), async (request, reply) => {
    const { ctx, status, page } = await listPage(request);
    return sendPage(reply, status, page, ctx.session);
  });

  // The books of on-chain money as CSV (issue 30), streamed as read; a refused range answers the list with the form and why.
  scope.get(areaRoute('payments', '/books.csv'), async (request, reply) => {
    const ctx = await requests.page(request);
    const range = booksRangeOf(request.query, ctx.clock.now());
    let lines: AsyncGenerator<string>;
    try {
      lines = await exportBooks.run(ctx, range);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      const { status, page } = await listPage(request, error.message);
      return sendPage(reply, status, page, ctx.session);
    }
    const name = `books-${ctx.principal.businessId}-${ctx.mode}-${range.from}-${range.to}.csv`;
    return reply.header('content-type', 'text/csv; charset=utf-8').header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="${name}"`).send(Readable.from(lines));
  });

  scope.get(areaRoute('payments', '/:payment'), async (request, reply) => {
    const ctx = await requests.page(request);
    const timeline = await readPaymentTimeline.run(ctx, { id: idOf(request.params) });
    const transfers = (await perform(ctx, listTransfers, { id: timeline.payment.id })).data;
    const query = request.query as { accepted?: unknown; rest?: unknown };
    const accepted = query.accepted === '1' && timeline.payment.status === 'paid';
    const restAsked = query.rest === 'asked' && timeline.rest?.remainder !== null;
    return sendPage(reply, 200, paymentPage({ ...frameOf(ctx), timeline, transfers, accepted, restAsked }), ctx.session);
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
