import { defineOperation } from '../../verbs/operation.ts';
import { listCustomers } from './list.ts';
import { retrieveCustomer } from './retrieve.ts';
import { CustomerIdInput, CustomerList, CustomerOut, ListCustomersInput } from './schemas.ts';

export const customerOperations = [
  defineOperation({
    name: 'retrieve_customer',
    title: 'Get customer',
    description: 'Get one customer (one buyer email in this mode) by its cus_ id: contact details, addresses, store accounts, ' +
      'orders_count, paid_orders_count and spent (currency to decimal string). Customers change only through orders.',
    useWhen: 'you hold a cus_ id (from a payment or an order) and need the buyer\'s details or history.',
    tag: 'Customers',
    scope: 'customers:read',
    input: CustomerIdInput,
    output: CustomerOut,
    http: { method: 'GET', path: '/customers/:id', status: 200 },
    run: retrieveCustomer,
  }),
  defineOperation({
    name: 'list_customers',
    title: 'List customers',
    description: 'List customers newest first, or find the one customer with an email address (any letter case; empty data means none in this mode). ' +
      'Pass next_cursor as starting_after for the next page. List a customer\'s orders with the orders list and customer_id.',
    useWhen: 'finding a buyer by email, or going through your buyers.',
    tag: 'Customers',
    scope: 'customers:read',
    input: ListCustomersInput,
    output: CustomerList,
    http: { method: 'GET', path: '/customers', status: 200 },
    run: listCustomers,
  }),
];
