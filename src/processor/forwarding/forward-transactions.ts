import { sql, type Selectable } from 'kysely';
import { keccak256, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { ForwardShare, ProcessorForwardTransactionsTable } from '../../db/schema.ts';
import type { ForwardChain } from '../chain/forward-chain.ts';

// A forward's transactions as the database keeps them: each sender's nonce taken in the database
// transaction that stores the transaction signed with it (raw bytes and hash), before anything is
// broadcast; a replacement re-signs the same calls under the same nonce at a higher fee.

export type ForwardTransactionRow = Selectable<ProcessorForwardTransactionsTable>;

export type Fees =
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  /** Legacy: the sender pays exactly gas used × gasPrice, so a deposit address's top-up is exact. */
  | { type: 'legacy'; gasPrice: bigint };

export interface TransactionToSign {
  purpose: 'batch' | 'top_up' | 'share';
  shares: ForwardShare[];
  signer: PrivateKeyAccount;
  senderKind: 'gas_wallet' | 'deposit';
  to: Address;
  data: Hex;
  value: bigint;
  gas: bigint;
  fees: Fees;
}

export function feeCap(fees: Fees): bigint {
  return fees.type === 'legacy' ? fees.gasPrice : fees.maxFeePerGas;
}

export async function sign(chainId: number, nonce: number, tx: Omit<TransactionToSign, 'purpose' | 'shares' | 'senderKind'>): Promise<{ raw: Hex; hash: Hex }> {
  const common = { chainId, nonce, to: tx.to, data: tx.data, value: tx.value, gas: tx.gas };
  const raw = tx.fees.type === 'legacy'
    ? await tx.signer.signTransaction({ ...common, type: 'legacy', gasPrice: tx.fees.gasPrice })
    : await tx.signer.signTransaction({ ...common, type: 'eip1559', maxFeePerGas: tx.fees.maxFeePerGas, maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas });
  return { raw, hash: keccak256(raw) };
}

/** The fee columns of a row. */
function feeColumns(fees: Fees) {
  return fees.type === 'legacy'
    ? { max_fee_per_gas: fees.gasPrice.toString(), max_priority_fee_per_gas: null }
    : { max_fee_per_gas: fees.maxFeePerGas.toString(), max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString() };
}

export function feesOf(row: ForwardTransactionRow): Fees {
  return row.max_priority_fee_per_gas === null
    ? { type: 'legacy', gasPrice: BigInt(row.max_fee_per_gas) }
    : { type: 'eip1559', maxFeePerGas: BigInt(row.max_fee_per_gas), maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas) };
}

/**
 * Takes a sender's next nonce from processor.sender_nonces, inside the caller's database
 * transaction (the one that stores what is signed with it): at least `floor` (what the chain has
 * mined), never one given before. Forwards and sweeps take the gas wallet's and a deposit
 * address's nonces here alike.
 */
export async function takeNonce(trx: Db, request: { network: string; sender: string; kind: 'gas_wallet' | 'deposit'; floor: number; now: Date }): Promise<number> {
  const { network, sender, kind, floor, now } = request;
  await trx.insertInto('processor.sender_nonces').values({ network, address: sender, kind, next_nonce: floor, updated_at: now })
    .onConflict((oc) => oc.columns(['network', 'address']).doNothing()).execute();
  const taken = await trx.updateTable('processor.sender_nonces')
    .set({ next_nonce: sql`greatest(next_nonce, ${floor}) + 1`, updated_at: now })
    .where('network', '=', network).where('address', '=', sender)
    .returning(sql<number>`next_nonce - 1`.as('nonce')).executeTakeFirstOrThrow();
  return Number(taken.nonce);
}

/**
 * Takes each sender's next nonce, signs every transaction and stores them, all in one database
 * transaction: either all are written down, nonces with them, or none is and no nonce is spent.
 * Answers none when the forward already has transactions in flight.
 * A sender's first nonce is what the chain has mined (more, when something else spent some).
 */
export async function signAndStore(deps: { db: Db; clock: Clock; chain: ForwardChain }, forwardId: number, txs: TransactionToSign[]): Promise<ForwardTransactionRow[]> {
  const { db, clock, chain } = deps;
  const network = chain.network.name;
  const senders = [...new Set(txs.map((tx) => tx.signer.address))];
  const mined = new Map(await Promise.all(senders.map(async (sender) => [sender, await chain.minedNonce(sender)] as const)));
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    // The forward locked, and nothing of it in flight: a second processor attempting it at once signs nothing.
    await trx.selectFrom('processor.forwards').select('id').where('id', '=', forwardId).forUpdate().executeTakeFirstOrThrow();
    const inFlight = await trx.selectFrom('processor.forward_transactions').select('id').where('forward_id', '=', forwardId)
      .where('state', 'in', ['signed', 'broadcast', 'mined']).executeTakeFirst();
    if (inFlight) return [];
    const rows: ForwardTransactionRow[] = [];
    for (const tx of txs) {
      const sender = tx.signer.address.toLowerCase();
      const floor = mined.get(tx.signer.address) ?? 0;
      const taken = await takeNonce(trx, { network, sender, kind: tx.senderKind, floor, now });
      const { raw, hash } = await sign(chain.network.chainId, taken, tx);
      rows.push(await trx.insertInto('processor.forward_transactions').values({
        forward_id: forwardId, network, purpose: tx.purpose, shares: tx.shares, sender, nonce: taken,
        to_address: tx.to.toLowerCase(), data: tx.data.toLowerCase(), value: tx.value.toString(), gas: tx.gas, ...feeColumns(tx.fees),
        raw, tx_hash: hash, state: 'signed', signed_at: now, updated_at: now,
      }).returningAll().executeTakeFirstOrThrow());
    }
    return rows;
  });
}

/**
 * Re-signs a transaction's same calls under its same nonce at `fees`, and stores it before it is
 * broadcast, keeping the hash it replaces (the one mined may still be any of them).
 */
export async function storeReplacement(deps: { db: Db; clock: Clock; chain: ForwardChain }, row: ForwardTransactionRow, signer: PrivateKeyAccount, fees: Fees): Promise<ForwardTransactionRow> {
  const { raw, hash } = await sign(deps.chain.network.chainId, row.nonce, {
    signer, to: row.to_address as Address, data: row.data as Hex, value: BigInt(row.value), gas: BigInt(row.gas), fees,
  });
  return deps.db.updateTable('processor.forward_transactions').set({
    ...feeColumns(fees), raw, tx_hash: hash, replaced_hashes: sql`array_append(replaced_hashes, tx_hash)`,
    state: 'signed', broadcast_at: null, updated_at: deps.clock.now(),
  }).where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).returningAll().executeTakeFirstOrThrow();
}

export function transactionsOf(db: Db, forwardId: number): Promise<ForwardTransactionRow[]> {
  return db.selectFrom('processor.forward_transactions').selectAll().where('forward_id', '=', forwardId).orderBy('id').execute();
}
