import { expect, it } from 'vitest';
import { forwardedTotal } from '../../src/dashboard/pages/payment-books.ts';
import type { TransferOut } from '../../src/resources/ledger/schemas.ts';

// "Reached you" on the payment page, by the books: the forwards' nets and the operator's sweeps to
// the payout wallet, summed exactly per coin, never one coin's amount under another's name.

const PAYOUT = '0x9f2a5b1c4d3e6f708192a3b4c5d6e7f809123456';
const move = (kind: TransferOut['kind'], coin: string, amount: string, to = PAYOUT): TransferOut => ({
  id: `mov_${kind}${amount}`, object: 'transfer', payment_id: 'pay_1', livemode: true, kind, network: 'polygon', coin, amount,
  txid: `0x${'a'.repeat(64)}`, log_index: 0, block_number: 1, from: '0x1111111111111111111111111111111111111111', to,
  token: kind === 'gas_top_up' ? null : '0x2222222222222222222222222222222222222222', disposition: null, needs_review: false,
  explorer_url: 'https://polygonscan.com/tx/0x', deposit_txid: null, deposit_log_index: null, created: 0,
} as TransferOut);

it('sums the nets and the sweeps to the payout wallet per coin, exactly; a fee, a top-up and a sweep to the operator are not the merchant\'s', () => {
  expect(forwardedTotal([], PAYOUT)).toBeNull();
  expect(forwardedTotal([move('forward_net', 'polygon_usdc', '19.800000'), move('forward_fee', 'polygon_usdc', '0.200000', '0x3333333333333333333333333333333333333333')], PAYOUT))
    .toBe('19.80 USDC on Polygon');
  expect(forwardedTotal([
    move('forward_net', 'polygon_usdc', '19.800000'), move('forward_net', 'polygon_usdc', '9.900000'), move('forward_net', 'polygon_usdt', '4.950000'),
    move('sweep', 'polygon_usdc', '1.500000', PAYOUT.toUpperCase().replace('0X', '0x')), move('sweep', 'polygon_usdc', '7.000000', '0x3333333333333333333333333333333333333333'),
    move('gas_top_up', 'polygon_pol', '0.000052500000000000', '0x1111111111111111111111111111111111111111'),
    move('sweep', 'polygon:0x4444444444444444444444444444444444444444', '2.500000000000000001'),
  ], PAYOUT)).toBe('31.20 USDC on Polygon + 4.95 USDT on Polygon + 2.500000000000000001 Polygon:0x4444444444444444444444444444444444444444');
});
