import type { VNode } from 'preact';
import type { TransferOut } from '../../resources/ledger/schemas.ts';
import { PaymentBooks } from './payment-books.ts';
import type { Page } from '../../core/pagination.ts';
import { FULFILLMENTS, type OrderOut } from '../../resources/orders/schemas.ts';
import { PAYMENT_STATUSES } from '../../resources/shared/payment-status.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { Button, Form, html, Money, Notice, RadioGroup, Table, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import { DateFilters, emptyList, FilterForm, type Filters, Pager, StatusFilter } from './list.ts';
import { Facts } from './payment.ts';
import { PaymentBadge } from '../wording.ts';

export const ORDER_FILTERS = ['status', 'customer_id', 'from', 'to'] as const;

const FULFILLMENT_NAMES: Record<OrderOut['fulfillment'], string> = { none: 'Nothing to fulfil', unfulfilled: 'Not fulfilled yet', fulfilled: 'Fulfilled' };

/** The business's orders in one mode, newest first. */
export function ordersPage({ session, business, mode, role, orders, filters, later, refused }: BusinessFrame & { orders: Page<OrderOut>; filters: Filters; later: boolean; refused?: string | undefined }): VNode {
  const path = businessPath(business.id, 'orders', mode);
  const rows = orders.data.map((order) => [
    html`<a href=${objectPath(business.id, 'orders', mode, order.id)}>${order.display_number}</a>`,
    at(order.created),
    order.summary,
    Money({ amount: order.total, currency: order.currency }),
    PaymentBadge({ status: order.status }),
    FULFILLMENT_NAMES[order.fulfillment],
    order.customer?.email ?? '–',
  ]);
  return DashboardPage({
    title: 'Orders',
    session,
    frame: { business, mode, role },
    area: 'orders',
    children: html`<div>
      <h1>Orders</h1>
      ${FilterForm({ path, label: 'Filter orders', filters, refused, children: [
        StatusFilter({ statuses: PAYMENT_STATUSES, value: filters.status ?? '' }),
        TextField({ name: 'customer_id', label: 'Customer id', value: filters.customer_id ?? '', maxLength: 100 }),
        ...DateFilters({ filters }),
      ] })}
      ${Table({ label: 'Orders', columns: ['Order', 'Created', 'Items', 'Total', 'Status', 'Fulfilment', 'Customer'], rows, empty: emptyList(filters, 'orders') })}
      ${Pager({ path, filters, nextCursor: orders.next_cursor, later })}
    </div>`,
  });
}

/** One order: items, totals, payments, fulfilment (to change), and the cancellations and refunds reported. */
export function orderPage({ session, business, mode, role, order, transfers = [], saved }: BusinessFrame & { order: OrderOut; transfers?: readonly TransferOut[]; saved?: boolean }): VNode {
  const money = (amount: string) => Money({ amount, currency: order.currency });
  const manages = role !== undefined && atLeast(role, 'developer');
  const items = order.items.map((item) => [item.variant ? `${item.name} (${item.variant})` : item.name, item.sku ?? '–', String(item.quantity), item.unit_amount === null ? '–' : money(item.unit_amount), money(item.amount)]);
  return DashboardPage({
    title: `Order ${order.display_number}`,
    session,
    frame: { business, mode, role },
    area: 'orders',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'orders', mode)}>All orders</a></p>
      <h1>Order ${order.display_number}</h1>
      ${saved && Notice({ tone: 'success', children: 'Fulfilment saved.' })}
      ${Facts({ label: 'The order', facts: [
        ['Status', PaymentBadge({ status: order.status })],
        ['Total', money(order.total)],
        ['Paid', money(order.amount_paid)],
        ['Customer', order.customer === null ? order.customer_name : order.customer.erased ? 'erased' : [order.customer.name, order.customer.email].filter(Boolean).join(', ') || null],
        ['Phone', order.customer_phone],
        ['Store order', order.store === null ? null : [order.store.name ?? order.store.platform, order.store.order_number ?? order.store.order_id].filter(Boolean).join(' ')],
        // As text, never links: addresses stored before they had to be http(s) may be javascript: or data:.
        ['Store address', order.store?.url ? html`<code>${order.store.url}</code>` : null],
        ['Order in the store', order.store?.order_url ? html`<code>${order.store.order_url}</code>` : null],
        ['Reference', order.reference],
        ['Created', at(order.created)],
        ['Paid at', at(order.paid_at)],
        ['Needs review', order.needs_review ? 'yes: a payment of it is held' : null],
      ] })}
      <h2>Items</h2>
      ${Table({ label: 'Items', columns: ['Item', 'SKU', 'Quantity', 'Unit price', 'Amount'], rows: items, empty: 'No items.' })}
      ${Facts({ label: 'Totals', facts: [
        ['Subtotal', money(order.subtotal)],
        ['Discount', order.discount === '0.00' ? null : html`<span>${money(order.discount)}${order.discount_code ? ` (${order.discount_code})` : ''}</span>`],
        ['Shipping', order.shipping === '0.00' ? null : html`<span>${money(order.shipping)}${order.shipping_method ? ` (${order.shipping_method})` : ''}</span>`],
        ['Tax', order.tax === '0.00' ? null : money(order.tax)],
        ['Total', money(order.total)],
      ] })}
      <h2>Payments</h2>
      ${order.payment_ids.length === 0 ? html`<p class="muted">No payment yet.</p>` : html`<ul>${order.payment_ids.map((id) => html`<li><a href=${objectPath(business.id, 'payments', mode, id)}>${id}</a></li>`)}</ul>`}
      ${transfers.length > 0 && PaymentBooks({ transfers })}
      <h2>Fulfilment</h2>
      ${manages
        ? Form({ action: objectPath(business.id, 'orders', mode, order.id, '/fulfillment'), label: 'Fulfilment', children: [
            RadioGroup({ name: 'fulfillment', legend: 'Fulfilment', value: order.fulfillment, choices: FULFILLMENTS.map((value) => ({ value, label: FULFILLMENT_NAMES[value] })) }),
            Button({ variant: 'primary', children: 'Save fulfilment' }),
          ] })
        : html`<p>${FULFILLMENT_NAMES[order.fulfillment]}</p>`}
      ${order.fulfilled_at !== null && html`<p>Fulfilled ${at(order.fulfilled_at)}</p>`}
      <h2>Cancellations and refunds</h2>
      ${order.timeline.length === 0
        ? html`<p class="muted">None reported.</p>`
        : html`<ol class="timeline" aria-label="Cancellations and refunds">${order.timeline.map((entry) => html`<li>
            <p><strong>${entry.type === 'canceled' ? 'Canceled' : 'Refunded'}</strong> ${at(entry.created)}${entry.amount !== null && html`<span>: ${money(entry.amount)}</span>`}</p>
            ${entry.reason !== null && html`<p>${entry.reason}</p>`}
          </li>`)}</ol>`}
    </div>`,
  });
}
