import { sql } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { Db } from '../../db/database.ts';
import type { ChainMovementKind, DepositDisposition, PaymentRow } from '../../db/schema.ts';

// Writing the books (issue 30, must have 3): each movement once, by the chain's own identity
// (network, transaction, log index, kind), whoever reports it and however often. What reached
// the merchant for a payment (payments.forwarded_net) is summed from its forward_net rows, and
// its sweeps of its own coin to its payout wallet, in the same transaction, so an order's
// `received` agrees with the ledger to the unit.

export interface Movement {
  kind: ChainMovementKind;
  network: string;
  txHash: string;
  logIndex: number | null;
  blockNumber: number | null;
  from: string;
  to: string;
  /** The token contract; null for the network's native coin. */
  token: string | null;
  coin: string;
  /** Base units, as the chain counts them. */
  value: bigint;
  decimals: number;
  /** For a share, top-up or sweep: the deposit it moves on. */
  deposit?: { txHash: string; logIndex: number | null } | null;
  disposition?: DepositDisposition | null;
  needsReview?: boolean;
}

/** Records movements of `payment` (in the caller's transaction); one already recorded is left as it is. Answers how many were new. */
export async function recordMovements(db: Db, payment: Pick<PaymentRow, 'id' | 'business_id' | 'livemode'>, movements: readonly Movement[], now: Date): Promise<number> {
  if (movements.length === 0) return 0;
  const inserted = await db.insertInto('chain_movements').values(movements.map((movement) => ({
    id: newId('mov'), business_id: payment.business_id, livemode: payment.livemode, payment_id: payment.id,
    kind: movement.kind, network: movement.network, tx_hash: movement.txHash.toLowerCase(), log_index: movement.logIndex,
    block_number: movement.blockNumber, from_address: movement.from.toLowerCase(), to_address: movement.to.toLowerCase(),
    token: movement.token?.toLowerCase() ?? null, coin: movement.coin, value: movement.value.toString(), decimals: movement.decimals,
    deposit_tx_hash: movement.deposit?.txHash.toLowerCase() ?? null, deposit_log_index: movement.deposit?.logIndex ?? null,
    disposition: movement.kind === 'deposit' ? movement.disposition ?? 'paid' : null, needs_review: movement.needsReview ?? false,
    recorded_at: now,
  }))).onConflict((oc) => oc.expression(sql`network, lower(tx_hash), coalesce(log_index, -1), kind`).doNothing()).returning('id').execute();
  if (movements.some((movement) => movement.kind === 'forward_net' || movement.kind === 'sweep')) await sumForwardedNet(db, payment.id);
  return inserted.length;
}

/**
 * payments.forwarded_net: its forward_net rows, and its sweeps of its own coin to its payout wallet,
 * in six decimals (the dollar coins the service prices); null while none.
 */
async function sumForwardedNet(db: Db, paymentId: string): Promise<void> {
  await sql`UPDATE payments p SET forwarded_net = (
      SELECT sum(m.value / power(10::numeric, m.decimals))::numeric(30, 6) FROM chain_movements m
      WHERE m.payment_id = p.id AND (m.kind = 'forward_net' OR (m.kind = 'sweep' AND m.coin = p.coin AND m.to_address = lower(p.payout_wallet))))
    WHERE p.id = ${paymentId}`.execute(db);
}

/** Whether this transfer (network, transaction, log) is already a deposit in the books, and of which payment. */
export async function depositRecorded(db: Db, network: string, txHash: string, logIndex: number): Promise<string | undefined> {
  const row = await db.selectFrom('chain_movements').select('payment_id').where('kind', '=', 'deposit').where('network', '=', network)
    .where(sql`lower(tx_hash)`, '=', txHash.toLowerCase()).where('log_index', '=', logIndex).executeTakeFirst();
  return row?.payment_id;
}

/** "19.800000" with `decimals` places from base units. */
export function unitsToDecimal(value: bigint, decimals: number): string {
  if (decimals === 0) return value.toString();
  const scale = 10n ** BigInt(decimals);
  return `${value / scale}.${(value % scale).toString().padStart(decimals, '0')}`;
}

/** Base units from a decimal string of at most `decimals` places ("30.5" → 30500000n at six). */
export function decimalToUnits(text: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  if (fraction.length > decimals) throw new RangeError(`${text} has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}
