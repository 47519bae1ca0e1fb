import { defineOperation } from '../../verbs/operation.ts';
import { listPayments } from './list.ts';
import { retrievePayment } from './retrieve.ts';
import { ListPaymentsInput, PaymentIdInput, PaymentList, PaymentOut } from './schemas.ts';
import { SimulatePaymentInput, simulatePayment } from './simulate.ts';
import { MAX_WAIT_SECONDS, WaitForPaymentInput, waitForPayment } from './wait.ts';

const MONEY = 'Amounts are decimal strings ("25.00"); coin amounts have six decimals.';

export const paymentOperations = [
  defineOperation({
    name: 'retrieve_payment',
    title: 'Get payment',
    description: `Get one payment (a checkout session, payment link or checkout purchase share its pay_ id) with its status and money facts: ` +
      `what arrived (value_coin, coin, txid_in), what reached the merchant (merchant_received, txid_out), hold reason, fee. ${MONEY}`,
    useWhen: 'you need one payment\'s money facts now; to wait for it to change, wait_for_payment.',
    tag: 'Payments',
    scope: 'payments:read',
    input: PaymentIdInput,
    output: PaymentOut,
    http: { method: 'GET', path: '/payments/:id', status: 200 },
    run: retrievePayment,
  }),
  defineOperation({
    name: 'list_payments',
    title: 'List payments',
    description: `List payments newest first, filtered by status, reference, source, order_id, customer_id or creation time. ` +
      `Pass next_cursor as starting_after for the next page. ${MONEY}`,
    useWhen: 'looking for payments by status, reference, source, order, customer or date.',
    tag: 'Payments',
    scope: 'payments:read',
    input: ListPaymentsInput,
    output: PaymentList,
    http: { method: 'GET', path: '/payments', status: 200 },
    run: listPayments,
  }),
  defineOperation({
    name: 'simulate_payment',
    title: 'Simulate payment outcome (Test)',
    description: 'Test mode only: make something happen to a Test payment, with the states and webhook events real money causes (start it first ' +
      'for money outcomes). Typical runs: paid then settled; underpaid then accepted; failed; expired; paid after expired (late payment); ' +
      'provider_reached (links can then no longer be canceled). Returns the payment.',
    useWhen: 'testing how your integration handles each outcome of a payment.',
    writes: 'moves a Test payment and sends its webhook events',
    tag: 'Payments',
    scope: 'checkouts:write',
    input: SimulatePaymentInput,
    output: PaymentOut,
    http: { method: 'POST', path: '/payments/:id/simulate', status: 200 },
    conflicts: ['invalid_state'],
    // Derived (not destructive): it moves only Test payments, which hold no money; a client asking
    // for confirmation before every simulated step would stand in the way of what Test mode is for.
    run: simulatePayment,
  }),
  defineOperation({
    name: 'wait_for_payment',
    title: 'Wait for a payment to change',
    description: `Wait until a payment's status differs from the one you pass (the one you last saw), then get the payment: the answer comes ` +
      `within a second of any change (paid, held, expired, …), or after timeout seconds (at most ${MAX_WAIT_SECONDS}, the default) with the status ` +
      `unchanged; then call again with that status. ${MONEY}`,
    useWhen: 'you handed a buyer a link or session and want to know when it is paid (wait with status open), instead of polling retrieve_payment.',
    tag: 'Payments',
    scope: 'payments:read',
    input: WaitForPaymentInput,
    output: PaymentOut,
    http: { method: 'GET', path: '/payments/:id/wait', status: 200 },
    waits: true,
    run: waitForPayment,
  }),
];
