import { defineOperation } from '../../verbs/operation.ts';
import { listOrders } from './list.ts';
import { reportOrderEvent } from './report-event.ts';
import { retrieveOrder } from './retrieve.ts';
import { ListOrdersInput, OrderIdInput, OrderList, OrderOut, ReportOrderEventInput, UpdateOrderInput } from './schemas.ts';
import { updateOrder } from './update.ts';

const WHAT = 'An order is what was bought and where it ships; its status follows all of its payments (paid wins over held over the latest attempt). ' +
  'Amounts are decimal strings in the order currency.';

export const orderOperations = [
  defineOperation({
    name: 'retrieve_order',
    title: 'Get order',
    description: `Get one order by its ord_ id with every item line, totals, amount_paid, payment_ids, fulfilment and timeline. ${WHAT}`,
    useWhen: 'you hold an ord_ id and need what was bought, paid and shipped.',
    tag: 'Orders',
    scope: 'orders:read',
    input: OrderIdInput,
    output: OrderOut,
    http: { method: 'GET', path: '/orders/:id', status: 200 },
    run: retrieveOrder,
  }),
  defineOperation({
    name: 'list_orders',
    title: 'List orders',
    description: `List orders newest first, by customer_id, status or creation time, or find one by the store's own order id (store_order_id). ${WHAT}`,
    useWhen: 'looking for a customer\'s orders, orders by status or date, or one by your store\'s order id.',
    tag: 'Orders',
    scope: 'orders:read',
    input: ListOrdersInput,
    output: OrderList,
    http: { method: 'GET', path: '/orders', status: 200 },
    run: listOrders,
  }),
  defineOperation({
    name: 'update_order',
    title: 'Update order fulfilment',
    description: 'Set an order\'s fulfillment to none, unfulfilled or fulfilled (fulfilled_at defaults to now). Fulfil only orders whose status is paid.',
    useWhen: 'a paid order was shipped (fulfilled), or that is to be undone.',
    writes: 'changes an order\'s fulfilment',
    tag: 'Orders',
    scope: 'orders:write',
    input: UpdateOrderInput,
    output: OrderOut,
    http: { method: 'PATCH', path: '/orders/:id', status: 200 },
    // As derived: the same fulfilment again changes nothing, and any fulfilment can be set back.
    run: updateOrder,
  }),
  defineOperation({
    name: 'report_order_event',
    title: 'Report order cancellation or refund',
    description: 'Record on the order\'s timeline that you canceled it or refunded money (type canceled or refunded, optional amount and reason). ' +
      'Payments are not changed; this is the merchant\'s record. Returns the order with its timeline.',
    useWhen: 'you canceled an order or refunded money yourself and its record should say so.',
    writes: 'adds a canceled or refunded entry to an order\'s timeline',
    tag: 'Orders',
    scope: 'orders:write',
    input: ReportOrderEventInput,
    output: OrderOut,
    http: { method: 'POST', path: '/orders/:id/events', status: 201 },
    // As derived: each call adds a timeline entry, and nothing is changed or removed.
    run: reportOrderEvent,
  }),
];
