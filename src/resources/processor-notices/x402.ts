import { z } from 'zod';
import { coded } from '../../core/validation.ts';
import { publicText } from '../../core/public-text.ts';
import type { Db } from '../../db/database.ts';
import { recordMovements } from '../ledger/record.ts';
import { claimOfPayment, claimRefused, claimSubmitted, X402_REASON_NAMES } from '../x402/claims.ts';
import type { NoticeOutcome } from './money.ts';
import { ForwardMovement, nativeCoin } from './money.ts';

// The processor's notices of a buyer's x402 authorization (issue 33, docs/x402.md): submitted
// (its transaction broadcast), refused (the chain would not take it, or the transaction failed),
// and final (its transaction final: the gas the processor paid, for the books). The deposit itself
// arrives as any other, by deposit.confirmed, which settles the claim (money.ts).

const invalid = (message: string) => coded('invalid_request', message);
const txHash = z.string(invalid('transaction ids must be 0x and 64 hex digits.')).toLowerCase().pipe(z.string().regex(/^0x[0-9a-f]{64}$/, invalid('transaction ids must be 0x and 64 hex digits.')));

export const X402Notice = z.object({
  id: z.string(invalid('id must be a string.')).min(1).max(200),
  type: z.enum(['x402.submitted', 'x402.refused', 'x402.final'], invalid('type must be x402.submitted, x402.refused or x402.final.')),
  authorization_id: z.string(invalid('authorization_id must be an x402 authorization\'s id.')).regex(/^x4a_[A-Za-z0-9]{1,60}$/, invalid('authorization_id must be an x402 authorization\'s id.')),
  payment_id: z.string(invalid('payment_id must be a string.')).min(1).max(100),
  deposit_address: z.string(invalid('deposit_address must be a string.')).min(1).max(100).toLowerCase(),
  network: z.string().min(1).max(40).optional(),
  txid: txHash.optional(),
  reason: z.enum(X402_REASON_NAMES, invalid(`reason must be one of ${X402_REASON_NAMES.join(', ')}.`)).optional(),
  message: z.string().max(2000).transform((text) => publicText(text, 500)).optional(),
  movements: z.array(ForwardMovement.extend({ kind: z.literal('x402_gas', invalid('an x402 report\'s movement is its gas, x402_gas.')) })).max(1).optional(),
});
export type X402Notice = z.output<typeof X402Notice>;

const rejected = (reason: string, paymentId: string | null = null): NoticeOutcome => ({ outcome: 'rejected', reason, paymentId });

/** Applies a verified x402 notice inside `trx`. */
export async function applyX402Notice(trx: Db, now: Date, notice: X402Notice): Promise<NoticeOutcome> {
  const payment = await trx.selectFrom('payments').selectAll().where('id', '=', notice.payment_id).where('livemode', '=', true).forUpdate().executeTakeFirst();
  if (!payment || payment.deposit_address?.toLowerCase() !== notice.deposit_address) return rejected('No Live payment has this id and deposit address.');
  const claim = await claimOfPayment(trx, notice.authorization_id, payment.id);
  if (!claim) return rejected(`${notice.authorization_id} is not an x402 authorization of ${payment.id}.`, payment.id);
  const unchanged = (why: string): NoticeOutcome => ({ outcome: 'duplicate', reason: why, paymentId: payment.id });
  if (notice.type === 'x402.submitted') {
    if (!notice.txid) return rejected('A submission names its transaction (txid).', payment.id);
    return await claimSubmitted(trx, { id: claim.id, paymentId: payment.id, txid: notice.txid }, now)
      ? { outcome: 'applied', reason: null, paymentId: payment.id } : unchanged(`The authorization is ${claim.state} already.`);
  }
  if (notice.type === 'x402.refused') {
    if (!notice.reason) return rejected('A refusal names the protocol\'s reason.', payment.id);
    return await claimRefused(trx, { id: claim.id, paymentId: payment.id, reason: notice.reason, txid: notice.txid ?? null }, now)
      ? { outcome: 'applied', reason: notice.message ?? null, paymentId: payment.id } : unchanged(`The authorization is ${claim.state} already.`);
  }
  const gas = notice.movements?.[0];
  if (!gas || !notice.network) return rejected('A final submission reports its network and its gas (one x402_gas movement).', payment.id);
  const recorded = await recordMovements(trx, payment, [{
    kind: 'x402_gas', network: notice.network, txHash: gas.txid, logIndex: null, blockNumber: gas.block_number, from: gas.from, to: gas.to, token: null,
    coin: nativeCoin(notice.network), value: gas.value, decimals: gas.decimals, deposit: null,
  }], now);
  return recorded > 0 ? { outcome: 'applied', reason: 'Recorded in the books: the gas to submit the buyer\'s authorization.', paymentId: payment.id } : unchanged('The gas is already in the books.');
}
