import { z } from 'zod';
import { unixSeconds } from '../../core/clock.ts';
import type { NetworkName } from '../../core/networks-config.ts';
import type { ChainMovementRow } from '../../db/schema.ts';
import { unitsToDecimal } from './record.ts';

// The API's view of the books (issue 30): one `transfer` per on-chain movement of a payment's
// money, as the chain identifies it. Shared by the API list, the MCP tool, the dashboard and the CSV.

export const TRANSFER_KINDS = ['deposit', 'forward_net', 'forward_fee', 'gas_top_up', 'sweep', 'x402_gas'] as const;

export const TransferOut = z.object({
  id: z.string().describe('`mov_…`'),
  object: z.literal('transfer').describe('Always `transfer`.'),
  payment_id: z.string().describe('The payment (`pay_…`) whose money moved.'),
  livemode: z.boolean().describe('false = Test, true = Live.'),
  kind: z.enum(TRANSFER_KINDS).describe('`deposit` (money that reached the deposit address), `forward_net` (to the merchant\'s payout wallet), ' +
    '`forward_fee` (the fee, to the service\'s fee wallet), `gas_top_up` (the network\'s own coin sent to the deposit address to pay for its forward), ' +
    '`sweep` (a stray token the operator moved off the deposit address), `x402_gas` (the network\'s own coin the service\'s gas wallet paid to submit a buyer\'s x402 authorization; the service bears it).'),
  network: z.string().describe('The network, such as `polygon`.'),
  txid: z.string().describe('The transaction, lowercase hex.'),
  log_index: z.number().int().nullable().describe('The Transfer log\'s index in its block; null for a movement of the native coin (no log).'),
  block_number: z.number().int().nullable().describe('The block it is in; null when not reported.'),
  from: z.string().describe('The sending address, lowercase.'),
  to: z.string().describe('The receiving address, lowercase.'),
  token: z.string().nullable().describe('The token contract, lowercase; null for the network\'s native coin.'),
  coin: z.string().describe('What moved, such as `polygon_usdc` (or `polygon_pol` for the native coin).'),
  amount: z.string().describe('The amount, an exact decimal string in `coin` with its own decimals (six for the dollar coins).'),
  deposit_txid: z.string().nullable().describe('For a forward share or a top-up: the deposit transaction it moves on.'),
  deposit_log_index: z.number().int().nullable().describe('For a forward share or a top-up: the deposit\'s log index.'),
  disposition: z.enum(['paid', 'held', 'extra']).nullable().describe('For a deposit: `paid` (it paid the payment), `held` (it arrived and the payment was held), ' +
    '`extra` (it came to a payment already paid or held: forwarded as any deposit, for the merchant to look at); null for other kinds.'),
  needs_review: z.boolean().describe('True for money the merchant should look at (an extra arrival).'),
  explorer_url: z.string().describe('The transaction on the network\'s block explorer.'),
  created: z.number().int().describe('When the service recorded it, Unix seconds.'),
}).describe('One on-chain movement of a payment\'s money: the service\'s books, as the chain recorded it.');
export type TransferOut = z.output<typeof TransferOut>;

export const TransferList = z.object({
  object: z.literal('list'),
  data: z.array(TransferOut).describe('The payment\'s movements, oldest first: each deposit, then the shares and top-ups that forwarded it.'),
  has_more: z.boolean().describe('Always false: a payment\'s movements come in one answer.'),
}).describe('A payment\'s on-chain movements.');
export type TransferList = z.output<typeof TransferList>;

/** A transaction's page on the network's explorer. */
export function explorerUrl(explorers: Readonly<Record<NetworkName, string>>, network: string, txHash: string): string {
  const base = Object.hasOwn(explorers, network) ? explorers[network as NetworkName] : explorers.polygon;
  return `${base}/tx/${txHash}`;
}

export function toTransferOut(row: ChainMovementRow, explorers: Readonly<Record<NetworkName, string>>): TransferOut {
  return {
    id: row.id, object: 'transfer', payment_id: row.payment_id, livemode: row.livemode, kind: row.kind, network: row.network,
    txid: row.tx_hash, log_index: row.log_index, block_number: row.block_number === null ? null : Number(row.block_number),
    from: row.from_address, to: row.to_address, token: row.token, coin: row.coin, amount: unitsToDecimal(BigInt(row.value), row.decimals),
    deposit_txid: row.deposit_tx_hash, deposit_log_index: row.deposit_log_index, disposition: row.disposition, needs_review: row.needs_review,
    explorer_url: explorerUrl(explorers, row.network, row.tx_hash), created: unixSeconds(row.recorded_at),
  };
}
