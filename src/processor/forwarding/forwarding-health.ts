import type { ExpressionBuilder } from 'kysely';
import { MINUTE } from '../../core/clock.ts';
import { publicText } from '../../core/public-text.ts';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { gasWalletStatus, LOW_GAS_FORWARDS } from './gas-wallet.ts';

// Whether a network's forwards can happen, from the database alone: the forwards that failed, the
// ones pending longer than FORWARD_LATE_AFTER_MS, and a gas wallet that cannot pay for one more.
// The processor sends it in each processor.status (the service shows it to merchants and mails
// the operator); `processor status`, the metrics and /readyz read the same.

/** A forward not final this long after it was written is late: shown to its merchant and the operator. */
export const FORWARD_LATE_AFTER_MS = 10 * MINUTE;
/** The forwards one status names per network, oldest first; the counts say how many there are in all. */
export const DELAYS_REPORTED = 200;

export type ForwardingTrouble = 'gas_wallet' | 'forwards_failed' | 'forwards_late';

export interface DelayedForward {
  forwardId: number;
  paymentId: string;
  depositAddress: string;
  state: 'failed' | 'pending';
  /** When the forward was written (its deposit turned final). */
  since: Date;
  reason: string;
}

export interface ForwardingHealth {
  healthy: boolean;
  /** The one cause that explains the rest (a gas wallet that cannot pay explains failed forwards); null when healthy. */
  trouble: ForwardingTrouble | null;
  problem: string | null;
  failed: number;
  late: number;
  delayed: DelayedForward[];
}

const minutes = (ms: number) => Math.max(1, Math.floor(ms / MINUTE));

export async function forwardingHealth(db: Db, network: string, now: Date): Promise<ForwardingHealth> {
  const lateBefore = new Date(now.getTime() - FORWARD_LATE_AFTER_MS);
  const delayedWhere = (eb: ExpressionBuilder<Database, 'processor.forwards'>) => eb.or([eb('state', '=', 'failed'), eb.and([eb('state', 'in', ['planned', 'sending']), eb('created_at', '<=', lateBefore)])]);
  const [rows, counts, gas] = await Promise.all([
    db.selectFrom('processor.forwards').select(['id', 'payment_id', 'deposit_address', 'state', 'failure', 'created_at'])
      .where('network', '=', network).where(delayedWhere).orderBy('created_at').orderBy('id').limit(DELAYS_REPORTED).execute(),
    db.selectFrom('processor.forwards').select((eb) => ['state', eb.fn.countAll<string>().as('count')])
      .where('network', '=', network).where(delayedWhere).groupBy('state').execute(),
    gasWalletStatus(db, network),
  ]);
  const failed = Number(counts.find((row) => row.state === 'failed')?.count ?? 0);
  const late = counts.filter((row) => row.state !== 'failed').reduce((sum, row) => sum + Number(row.count), 0);
  const delayed = rows.map((row): DelayedForward => ({
    forwardId: row.id, paymentId: row.payment_id, depositAddress: row.deposit_address, state: row.state === 'failed' ? 'failed' : 'pending', since: row.created_at,
    reason: row.state === 'failed'
      ? publicText(row.failure ?? 'It could not be sent.', 200)
      : `Not confirmed on the chain after ${minutes(now.getTime() - row.created_at.getTime())} minutes.`,
  }));
  // Below one forward's gas at the last price: nothing can be forwarded until it is funded.
  const cannotPay = gas.balance !== null && gas.threshold !== null && BigInt(gas.balance) * LOW_GAS_FORWARDS < BigInt(gas.threshold);
  const trouble: ForwardingTrouble | null = cannotPay ? 'gas_wallet' : failed > 0 ? 'forwards_failed' : late > 0 ? 'forwards_late' : null;
  const problem = trouble === 'gas_wallet'
    ? `The gas wallet ${gas.address} holds ${gas.balanceCoin} of ${network}'s native coin, too little to pay for a forward: fund it.`
    : trouble === 'forwards_failed'
      ? `${failed} forward${failed === 1 ? '' : 's'} failed; the oldest: ${delayed.find((each) => each.state === 'failed')?.reason ?? ''}`
      : trouble === 'forwards_late'
        ? `${late} forward${late === 1 ? ' is' : 's are'} not final after ${minutes(FORWARD_LATE_AFTER_MS)} minutes.`
        : null;
  return { healthy: trouble === null, trouble, problem: problem === null ? null : publicText(problem), failed, late, delayed };
}

/** /readyz's checks for a process running the processor: `forwarding_<network>`, `ok` or the trouble's name. */
export function forwardingChecks(db: Db, now: () => Date, networks: readonly string[]): () => Promise<Record<string, string>> {
  return async () => Object.fromEntries(await Promise.all(networks.map(async (network) =>
    [`forwarding_${network}`, (await forwardingHealth(db, network, now())).trouble ?? 'ok'] as const)));
}
