import type { ForwardShare } from '../../db/schema.ts';
import type { OutgoingMovement } from './outbox.ts';

// What a final forward moved, for its settlement notice (issue 30, the books): each share as the
// Transfer it made (deposit address → payout wallet, → fee wallet) and each gas top-up the gas
// wallet sent the deposit address, with their transactions, so the service books every movement.

export interface FinalForward {
  deposit_address: string;
  payout_wallet: string;
  fee_wallet: string;
  token: string;
  net: string;
  fee: string;
}

export interface FinalTransaction {
  purpose: 'batch' | 'top_up' | 'share';
  shares: readonly ForwardShare[];
  sender: string;
  to_address: string;
  value: string;
  tx_hash: string;
  block_number: number | string | null;
  state: string;
}

/** A share's Transfer log, where the receipt was read for it (its index in the block). */
export type ShareLogs = Partial<Record<ForwardShare, { txHash: string; logIndex: number; blockNumber: number | null }>>;

/**
 * The movements of a forward made final: its shares (by the transaction that moved each, `moved`)
 * and the final top-ups among `txs`. Tokens in `decimals` base units; the native coin in 18.
 */
export function forwardMovements(forward: FinalForward, txs: readonly FinalTransaction[], moved: Partial<Record<ForwardShare, string>>, decimals: number, logs: ShareLogs = {}): OutgoingMovement[] {
  const blockOf = (hash: string) => {
    const block = txs.find((tx) => tx.tx_hash === hash)?.block_number;
    return block === null || block === undefined ? null : Number(block);
  };
  const movements: OutgoingMovement[] = [];
  for (const [share, to, value] of [['net', forward.payout_wallet, forward.net], ['fee', forward.fee_wallet, forward.fee]] as const) {
    const txid = logs[share]?.txHash ?? moved[share];
    if (txid === undefined || BigInt(value) === 0n) continue;
    movements.push({
      kind: share === 'net' ? 'forward_net' : 'forward_fee', txid, log_index: logs[share]?.logIndex ?? null,
      block_number: logs[share]?.blockNumber ?? blockOf(txid), from: forward.deposit_address, to, token: forward.token, value, decimals,
    });
  }
  for (const tx of txs) {
    if (tx.purpose !== 'top_up' || tx.state !== 'final' || BigInt(tx.value) === 0n) continue;
    movements.push({
      kind: 'gas_top_up', txid: tx.tx_hash, log_index: null, block_number: blockOf(tx.tx_hash),
      from: tx.sender, to: tx.to_address, token: null, value: tx.value, decimals: 18,
    });
  }
  return movements;
}
