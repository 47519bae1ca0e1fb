import type { FastifyInstance } from 'fastify';
import { TransferList } from '../../resources/ledger/schemas.ts';
import { formField } from '../../core/form.ts';
import { OrderList, OrderOut } from '../../resources/orders/schemas.ts';
import { createdRangeOf, cursorOf, filtersOf, given, readFiltered } from '../filters.ts';
import { ORDER_FILTERS, orderPage, ordersPage } from '../pages/orders.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { frameOf, redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** Orders: the list, one order, and its fulfilment changed (the API's update_order). */
export function registerOrders(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const listOrders = operations.get('list_orders', OrderList);
  const retrieveOrder = operations.get('retrieve_order', OrderOut);
  const listTransfers = operations.get('list_payment_transfers', TransferList);
  const updateOrder = operations.get('update_order', OrderOut);
  const idOf = (params: unknown) => (params as { order: string }).order;

  scope.get(areaRoute('orders'), async (request, reply) => {
    const ctx = await requests.page(request);
    const filters = filtersOf(request.query, ORDER_FILTERS);
    const startingAfter = cursorOf(request.query);
    const { list: orders, refused, status } = await readFiltered(() => perform(ctx, listOrders, {
      ...given(filters, ['status', 'customer_id']), ...createdRangeOf(filters), ...(startingAfter ? { starting_after: startingAfter } : {}),
    }));
    return sendPage(reply, status, ordersPage({ ...frameOf(ctx), orders, filters, later: startingAfter !== undefined, refused }), ctx.session);
  });

  scope.get(areaRoute('orders', '/:order'), async (request, reply) => {
    const ctx = await requests.page(request);
    const order = await perform(ctx, retrieveOrder, { id: idOf(request.params) });
    // The books of each of its payments (an order has a few): what reached the payout wallet, adding up to its received.
    const transfers = ctx.principal.livemode
      ? (await Promise.all(order.payment_ids.slice(0, 20).map(async (id) => (await perform(ctx, listTransfers, { id })).data))).flat() : [];
    return sendPage(reply, 200, orderPage({ ...frameOf(ctx), order, transfers, saved: (request.query as { saved?: unknown }).saved === '1' }), ctx.session);
  });

  scope.post(areaRoute('orders', '/:order/fulfillment'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const order = await perform(ctx, updateOrder, { id: idOf(request.params), fulfillment: formField(form, 'fulfillment') });
    return redirect(reply, `${objectPath(ctx.principal.businessId, 'orders', ctx.mode, order.id)}?saved=1`);
  });
}
