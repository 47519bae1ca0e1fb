import type { StoredMovement } from '../../db/schema.ts';
import type { OutgoingMovement } from './outbox.ts';

// What a final forward or sweep moved, for its notice (issue 30, the books): each movement its
// receipts showed (forwarding/movements.ts verified them: the shares' and the sweep's Transfer
// logs, the gas top-ups' native value), as the service books them.

const KINDS = { net: 'forward_net', fee: 'forward_fee', gas: 'gas_top_up', sweep: 'sweep' } as const;

/** The verified movements of a forward or sweep as the notice reports them; tokens in `decimals` base units, the native coin in 18. */
export function settlementMovements(movements: readonly StoredMovement[], decimals: number): OutgoingMovement[] {
  return movements.filter((movement): movement is StoredMovement & { kind: keyof typeof KINDS } => movement.kind in KINDS).map((movement) => ({
    kind: KINDS[movement.kind], txid: movement.tx_hash, log_index: movement.log_index, block_number: Number(movement.block_number),
    from: movement.from, to: movement.to, token: movement.token, value: movement.value, decimals: movement.token === null ? 18 : decimals,
  }));
}
