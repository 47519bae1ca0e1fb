import { defineOperation } from '../../verbs/operation.ts';
import { createCheckout } from './create.ts';
import { listCheckouts } from './list.ts';
import { retrieveCheckout } from './retrieve.ts';
import { CheckoutIdInput, CheckoutList, CheckoutOut, CreateCheckoutInput, ListCheckoutsInput } from './schemas.ts';

export const checkoutOperations = [
  defineOperation({
    name: 'create_checkout',
    title: 'Create checkout page',
    description: 'Create a reusable hosted checkout page with a fixed price; every buyer who pays gets their own payment and order. ' +
      'Amounts are decimal strings such as "49.00". Returns the checkout with its url and slug (for buy buttons).',
    useWhen: 'selling one thing at one price to many buyers; for one payer, create_payment_link.',
    writes: 'creates a checkout page',
    tag: 'Checkouts',
    scope: 'checkouts:write',
    input: CreateCheckoutInput,
    output: CheckoutOut,
    http: { method: 'POST', path: '/checkouts', status: 201 },
    conflicts: ['no_payout_wallet', 'commerce_paused'],
    spends: async (_ctx, input) => ({ currency: input.currency, amountMinor: input.amount }),
    run: createCheckout,
  }),
  defineOperation({
    name: 'retrieve_checkout',
    title: 'Get checkout',
    description: 'Get one checkout by its chk_ id, including one deleted in the dashboard (active false). Amounts are decimal strings.',
    useWhen: 'you hold a chk_ id and need its price, url or whether it still takes buyers.',
    tag: 'Checkouts',
    scope: 'payments:read',
    input: CheckoutIdInput,
    output: CheckoutOut,
    http: { method: 'GET', path: '/checkouts/:id', status: 200 },
    run: retrieveCheckout,
  }),
  defineOperation({
    name: 'list_checkouts',
    title: 'List checkouts',
    description: 'List active checkouts (pages, pricing tables, widgets), newest first, optionally of one kind. ' +
      'Pass next_cursor as starting_after for the next page.',
    useWhen: 'looking for a checkout page, pricing table or widget made earlier.',
    tag: 'Checkouts',
    scope: 'payments:read',
    input: ListCheckoutsInput,
    output: CheckoutList,
    http: { method: 'GET', path: '/checkouts', status: 200 },
    run: listCheckouts,
  }),
];
