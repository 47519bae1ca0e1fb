import { defineOperation } from '../../verbs/operation.ts';
import { cancelPaymentLink } from './cancel.ts';
import { createPaymentLink } from './create.ts';
import { listPaymentLinks } from './list.ts';
import { retrievePaymentLink } from './retrieve.ts';
import { CreatePaymentLinkInput, ListPaymentLinksInput, PaymentLinkIdInput, PaymentLinkList, PaymentLinkOut } from './schemas.ts';
import { X402_HOW, x402Note } from '../shared/payer-urls.ts';

const MONEY = 'Amounts are decimal strings such as "25.00", never numbers.';

export const paymentLinkOperations = [
  defineOperation({
    name: 'create_payment_link',
    title: 'Create payment link',
    description: 'Create a one-off payment link asking one payer for one amount (a decimal string such as "25.00"), in the credential\'s mode. ' +
      'Returns the payment_link with its url (the payer\'s page), status "open" and expires_at (default 7 days). ' + X402_HOW,
    useWhen: 'one payer owes one amount: send them the url (for a product many buyers pay for, create_checkout).',
    writes: 'creates a payment link',
    tag: 'Payment links',
    scope: 'checkouts:write',
    input: CreatePaymentLinkInput,
    output: PaymentLinkOut,
    http: { method: 'POST', path: '/payment_links', status: 201 },
    conflicts: ['no_payout_wallet', 'commerce_paused'],
    spends: async (_ctx, input) => ({ currency: input.currency, amountMinor: input.amount }),
    run: createPaymentLink,
    agentNote: x402Note,
  }),
  defineOperation({
    name: 'retrieve_payment_link',
    title: 'Get payment link',
    description: `Get one payment link by its pay_ id, with its current status (a link past expires_at reads as "expired"). ${MONEY}`,
    useWhen: 'you hold a link\'s id and need its status now; to wait until it is paid, wait_for_payment.',
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
    useWhen: 'looking for links by status, your reference or date.',
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
    useWhen: 'a link must not be paid any more (a wrong amount, a canceled order).',
    writes: 'closes a payment link for good',
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
