import { decodeEventLog, type Transaction, type TransactionReceipt } from 'viem';
import type { Db } from '../../db/database.ts';
import type { StoredMovement } from '../../db/schema.ts';
import { TRANSFER_EVENT } from '../chain/chain-client.ts';

// Effects, not statuses (issue 30, must have 1): a transaction counts only once its receipt shows
// what it was sent for. A call to an address without code "succeeds" and moves nothing, so a
// forward, a gas top-up and a sweep are each checked against their receipt's own record: the
// token's Transfer logs, or the native value a top-up carried. What was verified is kept.

/** One movement the chain shows, typed: what the ledger reads (`verifiedMovements`). */
export interface VerifiedMovement {
  /** `net` to the payout wallet, `fee` to the fee wallet, `gas` the gas wallet's native top-up of the deposit address, `sweep` a swept token. */
  kind: StoredMovement['kind'];
  txHash: string;
  /** The Transfer log's index in its block; null for a native top-up (no log). */
  logIndex: number | null;
  blockNumber: bigint;
  blockHash: string;
  from: string;
  to: string;
  /** The token contract; null for the native coin. */
  token: string | null;
  /** Base units (the token's, or wei). */
  value: bigint;
}

export interface ExpectedTransfer {
  kind: 'net' | 'fee' | 'sweep';
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/** A mined transaction without the effect it was sent for; the message says what was missing, in words. */
export class IneffectiveTransaction extends Error {}

const lower = (text: string) => text.toLowerCase();

/**
 * The receipt's Transfer logs matching each expected transfer exactly (emitted by the token, from,
 * to, value), each log counted once; throws IneffectiveTransaction naming the first one missing.
 */
export function verifyTransfers(receipt: TransactionReceipt, expected: ExpectedTransfer[]): StoredMovement[] {
  const hash = lower(receipt.transactionHash);
  if (receipt.status !== 'success') throw new IneffectiveTransaction(`${hash} reverted`);
  const used = new Set<number>();
  return expected.map((want) => {
    const found = receipt.logs.find((log) => {
      if (used.has(log.logIndex) || lower(log.address) !== lower(want.token)) return false;
      try {
        const { args } = decodeEventLog({ abi: [TRANSFER_EVENT], data: log.data, topics: log.topics, strict: true });
        return lower(args.from) === lower(want.from) && lower(args.to) === lower(want.to) && args.value === want.value;
      } catch {
        return false;
      }
    });
    if (!found) {
      throw new IneffectiveTransaction(`${hash} was mined as a success but moved nothing of the ${want.kind}: its receipt has no Transfer of ${want.value} from ${lower(want.from)} to ${lower(want.to)} by the token ${lower(want.token)}`);
    }
    used.add(found.logIndex);
    return {
      kind: want.kind, tx_hash: hash, log_index: found.logIndex, block_number: receipt.blockNumber.toString(), block_hash: lower(receipt.blockHash),
      from: lower(want.from), to: lower(want.to), token: lower(want.token), value: want.value.toString(),
    };
  });
}

/** Gas a plain value transfer to an account without code uses, exactly. */
const PLAIN_TRANSFER_GAS = 21_000n;

/**
 * A gas top-up: the transaction sent `value` of the native coin to `to` and did nothing else (a
 * plain transfer to an account without code uses exactly 21,000 gas). Logs are not held against it:
 * Polygon PoS adds its own (LogFeeTransfer from 0x…1010) to every receipt. Throws IneffectiveTransaction otherwise.
 */
export function verifyTopUp(receipt: TransactionReceipt, transaction: Pick<Transaction, 'to' | 'value' | 'from'>, expected: { to: string; value: bigint }): StoredMovement {
  const hash = lower(receipt.transactionHash);
  if (receipt.status !== 'success') throw new IneffectiveTransaction(`the gas top-up ${hash} reverted`);
  const to = transaction.to === null ? null : lower(transaction.to);
  if (to !== lower(expected.to) || transaction.value !== expected.value || receipt.gasUsed !== PLAIN_TRANSFER_GAS) {
    throw new IneffectiveTransaction(`the gas top-up ${hash} did not deliver ${expected.value} wei to ${lower(expected.to)} as a plain transfer (it sent ${transaction.value} wei to ${to ?? 'no address'} and used ${receipt.gasUsed} gas)`);
  }
  return {
    kind: 'gas', tx_hash: hash, log_index: null, block_number: receipt.blockNumber.toString(), block_hash: lower(receipt.blockHash),
    from: lower(transaction.from), to, token: null, value: expected.value.toString(),
  };
}

export function toVerifiedMovement(stored: StoredMovement): VerifiedMovement {
  return {
    kind: stored.kind, txHash: stored.tx_hash, logIndex: stored.log_index, blockNumber: BigInt(stored.block_number), blockHash: stored.block_hash,
    from: stored.from, to: stored.to, token: stored.token, value: BigInt(stored.value),
  };
}

/**
 * What a final forward moved, as its receipts showed it: the gas top-ups (top-up path), then the net
 * and fee shares, each with its transaction, log index, block, from, to, token and value. Empty until
 * the forward is final (nothing is claimed before).
 */
export async function verifiedMovements(db: Db, forwardId: number): Promise<VerifiedMovement[]> {
  const row = await db.selectFrom('processor.forwards').select(['state', 'movements']).where('id', '=', forwardId).executeTakeFirst();
  if (row?.state !== 'final' || !row.movements) return [];
  return row.movements.map(toVerifiedMovement);
}
