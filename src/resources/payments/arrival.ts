import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { formatAmount } from '../../core/money.ts';
import { COIN_NAMES } from '../../core/networks-config.ts';
import { fromMicros, toMicros } from '../orders/derive.ts';
import { applyMove, type MachineDeps } from './machine.ts';

// Money arriving at a payment, and the checks of spec 3 that decide paid or held: a dollar
// coin, at least 90 % of the order's USD value locked at start, forwarded to the merchant's
// payout wallet, by a transaction never used before. The same checks serve the processor's
// Live notices and Test simulations. "A transaction never used before" is read as a transfer
// (network, transaction, log index) never used before (issue 30): exchanges batch withdrawals,
// and one transaction's two Transfer logs to two deposit addresses pay both payments.

/** The dollar coins, by their names (every coin the service knows is one). */
export const DOLLAR_COINS: Readonly<Record<string, string>> = COIN_NAMES;

/** Arrival below this share of the order's USD value fails the check (spec 8 hold threshold). */
export const HOLD_THRESHOLD_PERCENT = 90n;

export interface Arrival {
  /** What arrived, six decimals, in `coin`. */
  valueCoin: string;
  coin: string;
  network: string;
  txidIn: string;
  /** The Transfer log of txidIn that brought it; null when not reported (the whole transaction counts). */
  logIndex?: number | null;
  /** The wallet the processor forwarded the money to, when it says. */
  forwardedTo: string | null;
  /** Forwarding details when the processor already has them. */
  txidOut?: string | null;
  merchantReceived?: string | null;
  /** The card provider the buyer paid through; null for a payment from the buyer's own wallet. */
  provider?: { id: string; name: string } | null;
  /** How a wallet's payment reached us when not by a plain transfer: x402 (docs/x402.md), named in provider_name. */
  via?: 'x402';
}

export type ArrivalOutcome = { move: 'pay' | 'hold'; payment: PaymentRow } | { move: 'none'; reason: string };

interface Verdict {
  move: 'pay' | 'hold';
  holdReason: string | null;
  holdAcceptable: boolean;
  receivedMinor: number;
}

function judge(payment: PaymentRow, arrival: Arrival, txidUsedElsewhere: boolean): Verdict {
  const hold = (reason: string, acceptable: boolean, receivedMinor: number): Verdict =>
    ({ move: 'hold', holdReason: reason, holdAcceptable: acceptable, receivedMinor });
  const usdMicros = BigInt(payment.usd_value_minor ?? 0) * 10_000n;
  const valueMicros = toMicros(arrival.valueCoin);
  const proportional = usdMicros === 0n ? 0 : Number((BigInt(payment.amount_minor) * valueMicros) / usdMicros);
  const received = Math.min(payment.amount_minor, proportional);
  if (txidUsedElsewhere) {
    const transfer = arrival.logIndex == null ? `Transaction ${arrival.txidIn}` : `Transfer ${arrival.logIndex} of transaction ${arrival.txidIn}`;
    return hold(`${transfer} already paid another payment.`, false, 0);
  }
  if (arrival.forwardedTo !== null && payment.payout_wallet !== null
    && arrival.forwardedTo.toLowerCase() !== payment.payout_wallet.toLowerCase()) {
    return hold(`The money was forwarded to ${arrival.forwardedTo}, which is not the merchant's payout wallet.`, false, received);
  }
  if (!Object.hasOwn(DOLLAR_COINS, arrival.coin)) {
    return hold(`${arrival.valueCoin} ${arrival.coin} arrived, which is not a dollar coin.`, true, 0);
  }
  if (valueMicros * 100n < usdMicros * HOLD_THRESHOLD_PERCENT) {
    return hold(`Underpaid: ${fromMicros(valueMicros)} USD arrived of ${formatAmount(payment.usd_value_minor ?? 0)} USD due ` +
      `(at least ${HOLD_THRESHOLD_PERCENT}% is needed).`, true, received);
  }
  return { move: 'pay', holdReason: null, holdAcceptable: false, receivedMinor: payment.amount_minor };
}

/** A wallet payment's provider_name: the coin as people read it, and x402 when it came that way ("USDC on Base (x402)"). */
function coinName(arrival: Arrival): string {
  const name = (Object.hasOwn(DOLLAR_COINS, arrival.coin) ? DOLLAR_COINS[arrival.coin] : null) ?? arrival.coin;
  return arrival.via === 'x402' ? `${name} (x402)` : name;
}

/**
 * Applies money that arrived at `payment` (inside a transaction): paid when it passes every
 * check, held with a plain-words reason otherwise. Money may arrive late, after expiry or a
 * cancel (spec 3 rule 3), but never changes a paid or held payment.
 */
export async function applyArrival(db: Db, deps: MachineDeps, payment: PaymentRow, given: Arrival): Promise<ArrivalOutcome> {
  if (payment.usd_value_minor === null) return { move: 'none', reason: 'The payment was never started, so no money can be due to it.' };
  // One transaction in any letter case is one transaction (hex): compared and stored lowercased,
  // as the unique index on lower(txid_in) and the lowercase_txid domain (migration 0023) hold them.
  const arrival: Arrival = { ...given, txidIn: given.txidIn.toLowerCase(), txidOut: given.txidOut?.toLowerCase() ?? null };
  // Arrivals naming one transaction take turns, so it pays one payment at most.
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`txid:${arrival.txidIn}`}, 0))`.execute(db);
  // A transfer is used when another payment names it, or names its whole transaction (no log index).
  const logIndex = arrival.logIndex ?? null;
  const used = await db.selectFrom('payments').select('id').where(sql`lower(txid_in)`, '=', arrival.txidIn).where('id', '<>', payment.id)
    .$if(logIndex !== null, (query) => query.where((eb) => eb.or([eb('txid_in_log_index', 'is', null), eb('txid_in_log_index', '=', logIndex)])))
    .executeTakeFirst();
  const verdict = judge(payment, arrival, used !== undefined);
  const provider = arrival.provider ?? null;
  const row = await applyMove(db, deps, payment.id, verdict.move, {
    set: {
      value_coin: arrival.valueCoin,
      coin: arrival.coin,
      network: arrival.network,
      // A transaction that already paid another payment is named in the reason, not stored.
      txid_in: used ? null : arrival.txidIn,
      txid_in_log_index: used ? null : logIndex,
      // What reached the merchant is recorded for a paid payment only, never for a hold.
      txid_out: verdict.move === 'pay' ? arrival.txidOut ?? null : null,
      merchant_received: verdict.move === 'pay' ? arrival.merchantReceived ?? null : null,
      method: provider ? 'card' : 'crypto',
      provider: provider?.id ?? null,
      provider_name: provider?.name ?? coinName(arrival),
      hold_reason: verdict.holdReason,
      hold_acceptable: verdict.holdAcceptable,
      received_minor: verdict.receivedMinor,
      ...(verdict.move === 'pay' ? { paid_at: deps.clock.now() } : {}),
    },
  });
  if (!row) return { move: 'none', reason: `The payment is already ${payment.status}.` };
  return { move: verdict.move, payment: row };
}
