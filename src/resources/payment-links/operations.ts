import { defineOperation } from '../../verbs/operation.ts';
import { cancelPaymentLink } from './cancel.ts';
import { createPaymentLink } from './create.ts';
import { listPaymentLinks } from './list.ts';
import { retrievePaymentLink } from './retrieve.ts';
import { CreatePaymentLinkInput, ListPaymentLinksInput, PaymentLinkIdInput, PaymentLinkList, PaymentLinkOut } from './schemas.ts';

const MONEY = 'Amounts are decimal strings such as "25.00", never numbers.';
const MODE = 'The link is created in the mode of the credential (Test or Live); Test links never move real money.';

export const paymentLinkOperations = [
  defineOperation({
    name: 'create_payment_link',
    title: 'Create payment link',
    description: `Create a one-off payment link asking one payer for one amount. Use it to request a payment by sending the payer a URL. ${MONEY} ${MODE} Returns the payment_link object with its url (the payer's page), status "open" and expires_at (default 7 days).`,
    tag: 'Payment links',
    scope: 'checkouts:write',
    input: CreatePaymentLinkInput,
    output: PaymentLinkOut,
    http: { method: 'POST', path: '/payment_links', status: 201 },
    conflicts: ['no_payout_wallet', 'commerce_paused'],
    spends: async (_ctx, input) => ({ currency: input.currency, amountMinor: input.amount }),
    run: createPaymentLink,
  }),
  defineOperation({
    name: 'retrieve_payment_link',
    title: 'Get payment link',
    description: `Get one payment link by its pay_ id, with its current status (a link past expires_at reads as "expired"). ${MONEY}`,
    tag: 'Payment links',
    scope: 'payments:read',
    input: PaymentLinkIdInput,
    output: PaymentLinkOut,
    http: { method: 'GET', path: '/payment_links/:id', status: 200 },
    run: retrievePaymentLink,
  }),
  defineOperation({
    name: 'list_payment_links',
    title: 'List payment links',
    description: `List payment links, newest first, optionally filtered by status, reference or creation time. Pass next_cursor as starting_after to get the next page. ${MONEY}`,
    tag: 'Payment links',
    scope: 'payments:read',
    input: ListPaymentLinksInput,
    output: PaymentLinkList,
    http: { method: 'GET', path: '/payment_links', status: 200 },
    run: listPaymentLinks,
  }),
  defineOperation({
    name: 'cancel_payment_link',
    title: 'Cancel payment link',
    description: 'Close a payment link nobody has started paying: its status becomes "expired" with canceled_at set. Canceling again returns the same link. Fails with not_cancelable once the payer has gone to a card provider.',
    tag: 'Payment links',
    scope: 'checkouts:write',
    input: PaymentLinkIdInput,
    output: PaymentLinkOut,
    http: { method: 'POST', path: '/payment_links/:id/cancel', status: 200 },
    conflicts: ['not_cancelable'],
    // A canceled link can never be paid again; canceling it again returns it unchanged.
    annotations: { destructiveHint: true, idempotentHint: true },
    run: cancelPaymentLink,
  }),
];
