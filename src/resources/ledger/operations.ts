import { defineOperation } from '../../verbs/operation.ts';
import { PaymentIdInput } from '../payments/schemas.ts';
import { listPaymentTransfers } from './list.ts';
import { TransferList } from './schemas.ts';

export const ledgerOperations = [
  defineOperation({
    name: 'list_payment_transfers',
    title: 'List a payment\'s on-chain transfers',
    description: 'List the on-chain movements of a Live payment\'s money as the chain recorded them: each deposit that reached its deposit address ' +
      '(paid, held, or extra: money that came after it was paid) and what forwarded each (the net to your payout wallet, the fee, gas top-ups), ' +
      'with transaction, log index, addresses, exact amount and an explorer link. Unlike merchant_received (empty for a held or accepted payment), ' +
      'these add up to what reached your wallet. A Test payment has none.',
    useWhen: 'tracing where a Live payment\'s money went on chain.',
    tag: 'Payments',
    scope: 'payments:read',
    input: PaymentIdInput,
    output: TransferList,
    http: { method: 'GET', path: '/payments/:id/transfers', status: 200 },
    run: listPaymentTransfers,
  }),
];
