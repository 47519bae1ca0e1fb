import type { VNode } from 'preact';
import type { Page } from '../../core/pagination.ts';
import type { CustomerOut } from '../../resources/customers/schemas.ts';
import type { OrderOut } from '../../resources/orders/schemas.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { Button, Form, html, Money, Notice, Table, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import { FilterForm, Pager, type Filters } from './list.ts';
import { Facts } from './payment.ts';
import { PaymentStatus } from './payments.ts';

// Customers: the list (search by email), one customer with their orders, counts and spend per
// currency, the private note (seen only here), and erasing their details (spec 2.3 rule 7).

const manages = (role: BusinessFrame['role']) => role !== undefined && atLeast(role, 'developer');
const spent = (customer: CustomerOut) => Object.entries(customer.spent).map(([currency, amount]) => Money({ amount, currency }));
const nameOf = (customer: CustomerOut) => (customer.erased ? 'Details erased' : customer.name ?? customer.email ?? customer.id);

export function customersPage({ session, business, mode, role, customers, filters, later, refused }: BusinessFrame & { customers: Page<CustomerOut>; filters: Filters; later: boolean; refused?: string | undefined }): VNode {
  const path = businessPath(business.id, 'customers', mode);
  const rows = customers.data.map((customer) => [
    html`<a href=${objectPath(business.id, 'customers', mode, customer.id)}>${nameOf(customer)}</a>`,
    customer.email ?? '–',
    String(customer.orders_count),
    spent(customer).length === 0 ? '–' : html`<span>${spent(customer).map((money, index) => html`<span>${index > 0 ? ', ' : ''}${money}</span>`)}</span>`,
    at(customer.last_order_at),
  ]);
  return DashboardPage({
    title: 'Customers',
    session,
    frame: { business, mode, role },
    area: 'customers',
    children: html`<div>
      <h1>Customers</h1>
      ${FilterForm({ path, label: 'Find a customer', filters, refused, children: [
        TextField({ name: 'email', label: 'Email', hint: 'The whole address, in any letter case.', type: 'email', value: filters.email ?? '', maxLength: 254 }),
      ] })}
      ${Table({ label: 'Customers', columns: ['Customer', 'Email', 'Orders', 'Spent', 'Last order'], rows, empty: filters.email ? 'No customer has this email.' : 'No customers yet.' })}
      ${Pager({ path, filters, nextCursor: customers.next_cursor, later })}
    </div>`,
  });
}

export type CustomerNotice = 'note-saved' | 'erased';

/** One customer: details, counts and spend, their orders, the private note, erasing them. */
export function customerPage({ session, business, mode, role, customer, orders, note, notice, noteError }: BusinessFrame & {
  customer: CustomerOut; orders: OrderOut[]; note: string | null; notice?: CustomerNotice;
  /** The note as typed was refused: why (the field shows what was typed). */
  noteError?: string;
}): VNode {
  const path = objectPath(business.id, 'customers', mode, customer.id);
  const address = (value: CustomerOut['shipping_address']) => (value === null ? null : [value.name, value.line1, value.line2, value.postal_code, value.city, value.region, value.country].filter(Boolean).join(', '));
  const rows = orders.map((order) => [
    html`<a href=${objectPath(business.id, 'orders', mode, order.id)}>${order.display_number}</a>`,
    at(order.created),
    order.summary,
    Money({ amount: order.total, currency: order.currency }),
    PaymentStatus({ status: order.status }),
  ]);
  return DashboardPage({
    title: `Customer ${customer.id}`,
    session,
    frame: { business, mode, role },
    area: 'customers',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'customers', mode)}>All customers</a></p>
      <h1>${nameOf(customer)}</h1>
      ${notice === 'note-saved' && Notice({ tone: 'success', children: 'Note saved.' })}
      ${notice === 'erased' && Notice({ tone: 'success', children: 'Their details were erased from the customer, its orders and payments, and the stored webhook bodies.' })}
      ${Facts({ label: 'The customer', facts: [
        ['Email', customer.email],
        ['Name', customer.name],
        ['Phone', customer.phone],
        ['Shipping address', address(customer.shipping_address)],
        ['Billing address', address(customer.billing_address)],
        ['Orders', `${customer.orders_count} (${customer.paid_orders_count} paid)`],
        ['Spent', spent(customer).length === 0 ? null : html`<span>${spent(customer).map((money, index) => html`<span>${index > 0 ? ', ' : ''}${money}</span>`)}</span>`],
        ['Customer since', at(customer.created)],
        ['Id', html`<code>${customer.id}</code>`],
      ] })}
      <h2>Orders</h2>
      ${Table({ label: 'Their orders', columns: ['Order', 'Created', 'Items', 'Total', 'Status'], rows, empty: 'No orders.' })}
      ${customer.orders_count > orders.length && html`<p><a href=${`${businessPath(business.id, 'orders', mode)}?customer_id=${encodeURIComponent(customer.id)}`}>All their orders</a></p>`}
      ${!customer.erased && html`<section aria-labelledby="note-heading">
        <h2 id="note-heading">Private note</h2>
        <p class="muted">Seen only here, by your team: never in the API, to agents or in webhooks.</p>
        ${manages(role)
          ? Form({ action: `${path}/note`, label: 'Private note', children: [
              TextField({ name: 'note', label: 'Note', value: note ?? '', maxLength: 2000, error: noteError }),
              Button({ children: 'Save note' }),
            ] })
          : html`<p>${note ?? 'No note.'}</p>`}
      </section>`}
      ${manages(role) && !customer.erased && html`<p><a class="button danger" href=${`${path}/erase`}>Erase their details</a></p>`}
    </div>`,
  });
}

/** The typed confirmation before a customer's details are erased, for good. */
export function customerErasePage({ session, business, mode, role, customer, error }: BusinessFrame & { customer: CustomerOut; error?: string }): VNode {
  const path = objectPath(business.id, 'customers', mode, customer.id);
  const phrase = customer.email ?? customer.id;
  return DashboardPage({
    title: `Erase customer ${customer.id}`,
    session,
    frame: { business, mode, role },
    area: 'customers',
    children: html`<div>
      <h1>Erase ${nameOf(customer)}'s details?</h1>
      <p>Their email, name, phone and addresses are deleted from the customer, their orders and payments, and the webhook bodies kept for resending; so is your private note. Ids, amounts and payments stay. This cannot be undone.</p>
      ${Form({ action: `${path}/erase`, label: 'Erase the details', children: [
        TextField({ name: 'confirm', label: html`<span>Type <code>${phrase}</code> to confirm</span>`, error, required: true, maxLength: 254, autocomplete: 'off' }),
        Button({ variant: 'danger', children: 'Erase for good' }),
        html`<a href=${path}>Cancel</a>`,
      ] })}
    </div>`,
  });
}
