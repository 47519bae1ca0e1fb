import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../verbs/context.ts';
import { coded } from '../../core/validation.ts';
import type { Db } from '../../db/database.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { decimalToUnits, depositRecorded, recordMovements, type Movement } from '../ledger/record.ts';
import { applyArrival } from '../payments/arrival.ts';
import { applyMove } from '../payments/machine.ts';
import { findProvider } from '../providers/catalogue.ts';
import { claimSettledBy } from '../x402/claims.ts';

// The processor's notices about Live money (issue 3; the books, issue 30): `deposit.confirmed`
// for each Transfer that reached a deposit address, `settlement.completed` for each forward of
// one. Every movement they report is written to the ledger, whatever the payment's state: a held
// payment's money, an accepted hold's, an extra arrival at a paid payment all reached the
// merchant and are in the books. The payment's own fields keep spec 3's meaning: only the
// deposit that paid it settles it (txid_out, merchant_received); the rest is recorded, not refused.
// Transaction ids and addresses are hex, whose letter case the chain ignores: lowercased as read.

const invalid = (message: string) => coded('invalid_request', message);
/** What the payment reads: at most six decimals, as the service prices dollar coins. */
const coin = z.string().regex(/^\d{1,12}(\.\d{1,6})?$/);
const address = z.string(invalid('addresses must be 0x and 40 hex digits.')).toLowerCase().pipe(z.string().regex(/^0x[0-9a-f]{40}$/, invalid('addresses must be 0x and 40 hex digits.')));
const txHash = z.string(invalid('transaction ids must be 0x and 64 hex digits.')).toLowerCase().pipe(z.string().regex(/^0x[0-9a-f]{64}$/, invalid('transaction ids must be 0x and 64 hex digits.')));
const logIndex = z.number(invalid('log indexes must be whole numbers.')).int().min(0).max(2 ** 31 - 1);
const blockNumber = z.number(invalid('block numbers must be whole numbers.')).int().min(0).max(Number.MAX_SAFE_INTEGER);
/** Base units, as the chain counts them. */
const units = z.string(invalid('value must be base units, a decimal string.')).regex(/^\d{1,78}$/, invalid('value must be base units, a decimal string.')).transform(BigInt);
const decimals = z.number(invalid('decimals must be a whole number.')).int().min(0).max(36);

/** One share of a forward, a sweep, or a gas top-up, as the chain showed it moved. */
export const ForwardMovement = z.object({
  kind: z.enum(['forward_net', 'forward_fee', 'gas_top_up', 'sweep'], invalid('a movement kind is forward_net, forward_fee, gas_top_up or sweep.')),
  txid: txHash,
  log_index: logIndex.nullable(),
  block_number: blockNumber.nullable(),
  from: address,
  to: address,
  /** The token contract; null for the network's native coin (a gas top-up). */
  token: address.nullable(),
  value: units,
  decimals,
});

export const MoneyNotice = z.object({
  id: z.string(invalid('id must be a string.')).min(1).max(200),
  type: z.enum(['deposit.confirmed', 'settlement.completed', 'sweep.completed'], invalid('type must be deposit.confirmed, settlement.completed or sweep.completed.')),
  deposit_address: z.string(invalid('deposit_address must be a string.')).min(1).max(100).toLowerCase(),
  payment_id: z.string().max(100).nullish(),
  coin: z.string(invalid('coin must be a string.')).min(1).max(40).optional(),
  network: z.string().min(1).max(40).optional(),
  amount: coin.optional(),
  txid: z.string().min(1).max(200).toLowerCase().optional(),
  forwarded_to: z.string().max(100).toLowerCase().nullish(),
  txid_out: z.string().max(200).toLowerCase().nullish(),
  merchant_received: coin.nullish(),
  provider: z.string().max(40).nullish(),
  // Issue 30, additive: the deposit as the chain identifies it ...
  log_index: logIndex.nullish(),
  block_number: blockNumber.nullish(),
  from_address: address.nullish(),
  token: address.nullish(),
  value: units.nullish(),
  decimals: decimals.nullish(),
  // ... and a settlement's deposit and what its transactions moved.
  transfer_txid: txHash.nullish(),
  transfer_log_index: logIndex.nullish(),
  movements: z.array(ForwardMovement).max(10).nullish(),
});
export type MoneyNotice = z.output<typeof MoneyNotice>;
type ReportedMovement = z.output<typeof ForwardMovement>;

export type NoticeOutcome = { outcome: 'applied' | 'duplicate' | 'rejected'; reason: string | null; paymentId: string | null };

type Deps = Pick<AppContext, 'clock' | 'config' | 'jobs' | 'paymentMails'>;

const rejected = (reason: string, paymentId: string | null = null): NoticeOutcome => ({ outcome: 'rejected', reason, paymentId });
const applied = (paymentId: string, reason: string | null = null): NoticeOutcome => ({ outcome: 'applied', reason, paymentId });

/** Applies a verified money notice inside `trx`. */
export async function applyMoneyNotice(trx: Db, deps: Deps, notice: MoneyNotice): Promise<NoticeOutcome> {
  const payment = await trx.selectFrom('payments').selectAll().where(sql`lower(deposit_address)`, '=', notice.deposit_address)
    .where('deposit_address', 'is not', null).where('livemode', '=', true).forUpdate().executeTakeFirst();
  if (!payment) return rejected('No Live payment has this deposit address.');
  if (notice.payment_id && notice.payment_id !== payment.id) return rejected(`The deposit address belongs to ${payment.id}, not ${notice.payment_id}.`, payment.id);
  if (notice.type === 'deposit.confirmed') return applyDeposit(trx, deps, payment, notice);
  const kinds = new Set((notice.movements ?? []).map((movement) => movement.kind));
  if (notice.type === 'sweep.completed') {
    if (!kinds.has('sweep') || kinds.has('forward_net') || kinds.has('forward_fee')) return rejected('A sweep reports its sweep movement (and its gas top-up), nothing else.', payment.id);
    return applySweep(trx, deps, payment, notice);
  }
  if (kinds.has('sweep')) return rejected('A settlement reports the forward\'s shares and gas top-ups, not a sweep.', payment.id);
  return applySettlement(trx, deps, payment, notice);
}

/**
 * A sweep the operator ran (`processor sweep`), final on the chain: its transfer off the deposit
 * address and its gas top-up, in the books. A sweep of the payment's coin to its payout wallet is
 * money that reached the merchant (payments.forwarded_net counts it); a stray token, named by its
 * contract when the network does not price it, is booked in its own base units.
 */
async function applySweep(trx: Db, deps: Deps, payment: PaymentRow, notice: MoneyNotice): Promise<NoticeOutcome> {
  if (!notice.network) return rejected('A sweep needs the network it moved on.', payment.id);
  const network = notice.network;
  const coin = notice.coin ?? `${network}:${notice.token ?? 'token'}`;
  const sweep = (notice.movements ?? []).find((movement) => movement.kind === 'sweep')!;
  // A top-up names what it paid the gas of: here the sweep (as a forward's names its deposit).
  const recorded = await recordMovements(trx, payment, reportedMovements(notice, network, coin,
    (movement) => (movement.kind === 'gas_top_up' ? { txHash: sweep.txid, logIndex: sweep.log_index } : null)), deps.clock.now());
  return recorded > 0 ? applied(payment.id, 'Recorded in the books: a sweep off the deposit address.') : { outcome: 'duplicate', reason: 'The sweep is already in the books.', paymentId: payment.id };
}

async function applyDeposit(trx: Db, deps: Deps, payment: PaymentRow, notice: MoneyNotice): Promise<NoticeOutcome> {
  if (!notice.coin || !notice.network || !notice.amount || !notice.txid || !notice.forwarded_to) {
    return rejected('A deposit needs coin, network, amount, txid and forwarded_to (the wallet it is forwarded to).', payment.id);
  }
  const value = depositValue(notice);
  if (typeof value === 'string') return rejected(value, payment.id);
  const logIndex = notice.log_index ?? null;
  if (logIndex !== null) {
    const owner = await depositRecorded(trx, notice.network, notice.txid, logIndex);
    if (owner !== undefined) return { outcome: 'duplicate', reason: `Transfer ${logIndex} of ${notice.txid} is already in the books.`, paymentId: owner };
  }
  const provider = notice.provider ? findProvider(notice.provider) : undefined;
  // The deposit of a buyer's x402 authorization the processor submitted: that authorization settled.
  const viaX402 = notice.from_address != null && await claimSettledBy(trx, { paymentId: payment.id, from: notice.from_address, value: value.value, txid: notice.txid }, deps.clock.now());
  const outcome = await applyArrival(trx, deps, payment, {
    valueCoin: notice.amount, coin: notice.coin, network: notice.network, txidIn: notice.txid, logIndex,
    forwardedTo: notice.forwarded_to ?? null, txidOut: notice.txid_out ?? null, merchantReceived: notice.merchant_received ?? null,
    provider: provider ? { id: provider.id, name: provider.name } : null, ...(viaX402 ? { via: 'x402' as const } : {}),
  });
  // Money that came to a payment already paid or held is still money that arrived: in the books,
  // forwarded by the processor as any deposit, and for the merchant to look at. (A notice without
  // the transfer's identity, from an older processor, cannot be booked: it is applied as before.)
  const extra = outcome.move === 'none';
  const identified = logIndex !== null && notice.token != null && notice.from_address != null;
  if (identified) {
    await recordMovements(trx, payment, [{
      kind: 'deposit', network: notice.network, txHash: notice.txid, logIndex, blockNumber: notice.block_number ?? null,
      from: notice.from_address!, to: notice.deposit_address, token: notice.token!, coin: notice.coin, value: value.value, decimals: value.decimals,
      disposition: extra ? 'extra' : outcome.move === 'pay' ? 'paid' : 'held', needsReview: extra,
    }], deps.clock.now());
  }
  if (extra) return identified ? applied(payment.id, `Recorded as an extra arrival, for the merchant to look at: ${outcome.reason}`) : rejected(outcome.reason, payment.id);
  return applied(payment.id, outcome.move === 'hold' ? outcome.payment.hold_reason : null);
}

/** The deposit's base units: `value` and `decimals` when sent (they must agree with `amount`), else `amount` in six decimals. */
function depositValue(notice: MoneyNotice): { value: bigint; decimals: number } | string {
  const amount = notice.amount!;
  if (notice.value == null) return { value: decimalToUnits(amount, 6), decimals: notice.decimals ?? 6 };
  const places = notice.decimals ?? 6;
  if (places !== 6) return `${notice.coin} is priced in 6 decimals; the notice says its token has ${places}.`;
  if (decimalToUnits(amount, 6) !== notice.value) return `amount ${amount} is not value ${notice.value} in ${places} decimals.`;
  return { value: notice.value, decimals: places };
}

async function applySettlement(trx: Db, deps: Deps, payment: PaymentRow, notice: MoneyNotice): Promise<NoticeOutcome> {
  if (!notice.txid_out || !notice.merchant_received) return rejected('A settlement needs txid_out and merchant_received.', payment.id);
  const network = notice.network ?? payment.network;
  const recorded = network === null ? 0 : await recordMovements(trx, payment, settlementMovements(notice, payment, network), deps.clock.now());
  // Which deposit this forwards: named by the notice, else (an older processor) the one that paid the payment.
  const ofPayingDeposit = notice.transfer_txid == null
    || (notice.transfer_txid === payment.txid_in && (notice.transfer_log_index ?? null) === (payment.txid_in_log_index ?? notice.transfer_log_index ?? null));
  if (!ofPayingDeposit) return applied(payment.id, 'Recorded in the books: the forward of an arrival that did not pay this payment.');
  if (payment.txid_out !== null) {
    return recorded > 0 ? applied(payment.id, 'Recorded in the books; the payment\'s settlement was already recorded.')
      : { outcome: 'duplicate', reason: 'The settlement is already recorded.', paymentId: payment.id };
  }
  // A forward of a held or accepted payment's money is in the books; spec 3 leaves its settlement fields empty.
  const booked = notice.movements != null;
  if (payment.status === 'paid' && payment.hold_reason !== null) {
    return booked ? applied(payment.id, 'Recorded in the books. The payment was accepted from a hold: spec 3 keeps its merchant_received empty.')
      : rejected('The payment was accepted from a hold; its settlement details are not recorded.', payment.id);
  }
  if (payment.status !== 'paid') {
    return booked ? applied(payment.id, `Recorded in the books. The payment is ${payment.status}: its settlement fields stay empty.`)
      : rejected(`A settlement applies to a paid payment; this one is ${payment.status}.`, payment.id);
  }
  const settled = await applyMove(trx, deps, payment.id, 'settle', { set: { txid_out: notice.txid_out, merchant_received: notice.merchant_received } });
  return settled ? applied(payment.id) : rejected(`A settlement applies to a paid payment; this one is ${payment.status}.`, payment.id);
}

/** The movements a settlement reports (none from an older processor, which does not send them). */
function settlementMovements(notice: MoneyNotice, payment: PaymentRow, network: string): Movement[] {
  const deposit = notice.transfer_txid == null ? (payment.txid_in === null ? null : { txHash: payment.txid_in, logIndex: payment.txid_in_log_index })
    : { txHash: notice.transfer_txid, logIndex: notice.transfer_log_index ?? null };
  return reportedMovements(notice, network, notice.coin ?? payment.coin ?? 'unknown', () => deposit);
}

/** The movements a notice reports, as the books write them: a token's under `coin`, the native coin's under the network's. */
function reportedMovements(notice: MoneyNotice, network: string, coin: string, depositOf: (movement: ReportedMovement) => Movement['deposit']): Movement[] {
  return (notice.movements ?? []).map((movement) => ({
    kind: movement.kind, network, txHash: movement.txid, logIndex: movement.log_index, blockNumber: movement.block_number,
    from: movement.from, to: movement.to, token: movement.token,
    coin: movement.token === null ? nativeCoin(network) : coin, value: movement.value, decimals: movement.decimals, deposit: depositOf(movement),
  }));
}

/** The network's own coin, as the books name it (what gas is paid in). */
export function nativeCoin(network: string): string {
  return network === 'polygon' ? 'polygon_pol' : `${network}_eth`;
}

