import type { VNode } from 'preact';
import type { TransferOut } from '../../resources/ledger/schemas.ts';
import { html, Table } from '../../ui/index.ts';
import { decimalToUnits, unitsToDecimal } from '../../resources/ledger/record.ts';
import { coinAmount } from '../wording.ts';
import { unixTime as at } from './frame.ts';

// The books of a payment (issue 30): each on-chain movement of its money as the chain recorded
// it, with its transaction on the network's explorer, so a merchant sees what reached their wallet
// whatever the payment's state (a held payment's money, an accepted hold's, an extra arrival).

const KIND_WORDS: Record<TransferOut['kind'], string> = {
  deposit: 'Arrived at the deposit address',
  forward_net: 'Forwarded to your payout wallet',
  forward_fee: 'Fee',
  gas_top_up: 'Gas for the forward (the service pays it)',
  x402_gas: 'Gas to submit the buyer\'s x402 payment (the service pays it)',
  sweep: 'Moved off the deposit address by the operator',
};

const DISPOSITION_WORDS: Record<NonNullable<TransferOut['disposition']>, string> = {
  paid: 'paid this payment',
  held: 'the payment was held',
  extra: 'came after the payment was paid or held: forwarded to you; look at it',
};

const shortHash = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`;

/** A movement's amount in words: the coin's own decimals trimmed, the native coin named. */
function amountOf(transfer: TransferOut): string {
  return transfer.token === null ? `${transfer.amount.replace(/\.?0+$/, '')} ${transfer.coin.split('_')[1]?.toUpperCase() ?? ''}`.trim() : coinAmount(transfer.amount, transfer.coin);
}

/**
 * What reached the payout wallet, by the books: the net shares, and the operator's sweeps to that
 * wallet, summed per coin they came in ("29.70 USDC on Polygon + 5.00 USDT on Polygon").
 */
export function forwardedTotal(transfers: readonly TransferOut[], payoutWallet: string | null): string | null {
  const reached = transfers.filter((transfer) => transfer.kind === 'forward_net'
    || (transfer.kind === 'sweep' && payoutWallet !== null && transfer.to.toLowerCase() === payoutWallet.toLowerCase()));
  if (reached.length === 0) return null;
  const byCoin = Map.groupBy(reached, (transfer) => transfer.coin);
  return [...byCoin].map(([coin, ofCoin]) => {
    // Exact in the coin's own decimals (six for the dollar coins, a stray token's may have more).
    const places = Math.max(...ofCoin.map((transfer) => transfer.amount.split('.')[1]?.length ?? 0));
    return coinAmount(unitsToDecimal(ofCoin.reduce((sum, transfer) => sum + decimalToUnits(transfer.amount, places), 0n), places), coin);
  }).join(' + ');
}

export function PaymentBooks({ transfers }: { transfers: readonly TransferOut[] }): VNode {
  const rows = transfers.map((transfer) => [
    html`<span>${KIND_WORDS[transfer.kind]}${transfer.disposition !== null && html`<span class=${transfer.needs_review ? 'flag' : 'muted'}>: ${DISPOSITION_WORDS[transfer.disposition]}</span>`}</span>`,
    amountOf(transfer),
    html`<code>${transfer.from}</code><br />to <code>${transfer.to}</code>`,
    html`<a href=${transfer.explorer_url} rel="noreferrer" target="_blank">${shortHash(transfer.txid)}</a>${transfer.log_index !== null && html`<span class="muted"> log ${transfer.log_index}</span>`}`,
    at(transfer.created),
  ]);
  return html`<section aria-labelledby="books-heading">
    <h2 id="books-heading">Money on the chain</h2>
    ${Table({ label: 'Money on the chain', columns: ['What', 'Amount', 'From, to', 'Transaction', 'Recorded'], rows, empty: 'No money has moved on a chain for this payment yet.' })}
  </section>`;
}
