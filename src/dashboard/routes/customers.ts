import type { FastifyInstance } from 'fastify';
import { formField } from '../../core/form.ts';
import { eraseCustomer } from '../../resources/customers/erase.ts';
import { readCustomerNote, setCustomerNote } from '../../resources/customers/note.ts';
import { CustomerList, CustomerOut } from '../../resources/customers/schemas.ts';
import { OrderList } from '../../resources/orders/schemas.ts';
import { cursorOf, filtersOf, given, readFiltered } from '../filters.ts';
import { customerErasePage, customerPage, customersPage, type CustomerNotice } from '../pages/customers.ts';
import { areaRoute, objectPath } from '../paths.ts';
import { perform, type DashboardOperations } from '../perform.ts';
import { formRefusal } from '../refusals.ts';
import { frameOf, redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import { sendPage } from './send.ts';

const NOTICES: Record<string, CustomerNotice> = { note: 'note-saved', erased: 'erased' };

/** Customers: search by email, one customer with their orders and private note, erasing their details after typing a confirmation. */
export function registerCustomers(scope: FastifyInstance, requests: DashboardRequests, operations: DashboardOperations): void {
  const listCustomers = operations.get('list_customers', CustomerList);
  const retrieveCustomer = operations.get('retrieve_customer', CustomerOut);
  const listOrders = operations.get('list_orders', OrderList);
  const idOf = (params: unknown) => (params as { customer: string }).customer;
  const pathOf = (ctx: PersonContext, id: string) => objectPath(ctx.principal.businessId, 'customers', ctx.mode, id);

  scope.get(areaRoute('customers'), async (request, reply) => {
    const ctx = await requests.page(request);
    const filters = filtersOf(request.query, ['email']);
    const startingAfter = cursorOf(request.query);
    const { list: customers, refused, status } = await readFiltered(() => perform(ctx, listCustomers, { ...given(filters, ['email']), ...(startingAfter ? { starting_after: startingAfter } : {}) }));
    return sendPage(reply, status, customersPage({ ...frameOf(ctx), customers, filters, later: startingAfter !== undefined, refused }), ctx.session);
  });

  scope.get(areaRoute('customers', '/:customer'), async (request, reply) => {
    const ctx = await requests.page(request);
    const id = idOf(request.params);
    const customer = await perform(ctx, retrieveCustomer, { id });
    const [orders, note] = await Promise.all([perform(ctx, listOrders, { customer_id: customer.id }), readCustomerNote.run(ctx, { id })]);
    const notice = NOTICES[String((request.query as { done?: unknown }).done)];
    return sendPage(reply, 200, customerPage({ ...frameOf(ctx), customer, orders: orders.data, note: note?.note ?? null, ...(notice ? { notice } : {}) }), ctx.session);
  });

  scope.post(areaRoute('customers', '/:customer/note'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const id = idOf(request.params);
    try {
      await setCustomerNote.run(ctx, { id, note: formField(form, 'note') });
    } catch (error) {
      // Refused (too long): the customer's page again with the note as typed, saying why.
      const { status, message } = formRefusal(error, ctx);
      const customer = await perform(ctx, retrieveCustomer, { id });
      const orders = await perform(ctx, listOrders, { customer_id: customer.id });
      return sendPage(reply, status, customerPage({ ...frameOf(ctx), customer, orders: orders.data, note: formField(form, 'note') ?? '', noteError: message }), ctx.session);
    }
    return redirect(reply, `${pathOf(ctx, id)}?done=note`);
  });

  scope.get(areaRoute('customers', '/:customer/erase'), async (request, reply) => {
    const ctx = await requests.page(request);
    const customer = await perform(ctx, retrieveCustomer, { id: idOf(request.params) });
    if (customer.erased) return redirect(reply, pathOf(ctx, customer.id));
    return sendPage(reply, 200, customerErasePage({ ...frameOf(ctx), customer }), ctx.session);
  });

  scope.post(areaRoute('customers', '/:customer/erase'), async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const customer = await perform(ctx, retrieveCustomer, { id: idOf(request.params) });
    const phrase = customer.email ?? customer.id;
    // The typed confirmation, as the page asked (letter case aside); the action decides the rest.
    if (!customer.erased && (formField(form, 'confirm') ?? '').trim().toLowerCase() !== phrase.toLowerCase()) {
      return sendPage(reply, 400, customerErasePage({ ...frameOf(ctx), customer, error: `Type ${phrase} exactly, or cancel.` }), ctx.session);
    }
    await eraseCustomer.run(ctx, { id: customer.id });
    return redirect(reply, `${pathOf(ctx, customer.id)}?done=erased`);
  });
}
