import type { Db } from '../../db/database.ts';
import { gasWalletStatus } from './gas-wallet.ts';
import { FORWARD_LATE_AFTER_MS, forwardingHealth } from './forwarding-health.ts';
import { tokenTotals, type StatusSection } from '../operating/status.ts';

// What `processor status` shows of forwarding, from the database alone: the deposits still to
// forward (final transfers without a final forward), the forwards pending and failed with why, and
// the gas wallet as the last pass saw it. Nothing here loads viem: every CLI command imports it.

export interface ForwardsSummary {
  /** Forwards planned or on their way (signed, broadcast, mined, not yet final). */
  pending: number;
  failed: number;
  /** The failed forwards, oldest first, with why and when they are tried again. */
  failures: Array<{ id: number; paymentId: string; depositAddress: string; reason: string; retryAt: Date | null }>;
}

/** What `processor status` shows of a network's forwards. */
export async function forwardsSummary(db: Db, network: string): Promise<ForwardsSummary> {
  const rows = await db.selectFrom('processor.forwards').select(['id', 'payment_id', 'deposit_address', 'state', 'failure', 'retry_at'])
    .where('network', '=', network).where('state', 'in', ['planned', 'sending', 'failed']).orderBy('id').execute();
  const failed = rows.filter((row) => row.state === 'failed');
  return {
    pending: rows.length - failed.length,
    failed: failed.length,
    failures: failed.map((row) => ({ id: row.id, paymentId: row.payment_id, depositAddress: row.deposit_address, reason: row.failure ?? '', retryAt: row.retry_at })),
  };
}

/** Final deposits whose forward is not final yet (replaces status.ts's count of every final transfer). */
export const depositsAwaitingForward: StatusSection = {
  name: 'deposits_awaiting_forward',
  async read(db, network, tokens) {
    const rows = await db.selectFrom('processor.transfers as t')
      .leftJoin('processor.forwards as f', (join) => join.onRef('f.network', '=', 't.network').onRef('f.transfer_tx_hash', '=', 't.tx_hash').onRef('f.transfer_log_index', '=', 't.log_index'))
      .select((eb) => ['t.token', eb.fn.countAll<string>().as('count'), eb.fn.sum<string>('t.value').as('total')])
      .where('t.network', '=', network).where('t.status', '=', 'final')
      .where((eb) => eb.or([eb('f.id', 'is', null), eb('f.state', '!=', 'final')]))
      .groupBy('t.token').orderBy('t.token').execute();
    return tokenTotals('deposits awaiting forward', rows, tokens);
  },
};

export const forwardsSection: StatusSection = {
  name: 'forwards',
  async read(db, network) {
    const summary = await forwardsSummary(db, network);
    return {
      json: {
        pending: summary.pending, failed: summary.failed,
        failures: summary.failures.map((failure) => ({
          id: failure.id, payment_id: failure.paymentId, deposit_address: failure.depositAddress, reason: failure.reason, retry_at: failure.retryAt?.toISOString() ?? null,
        })),
      },
      text: [
        `forwards: ${summary.pending} pending, ${summary.failed} failed`,
        ...summary.failures.map((failure) => `  failed: ${failure.paymentId} (${failure.depositAddress}): ${failure.reason}`),
      ],
    };
  },
};

export const gasWalletSection: StatusSection = {
  name: 'gas_wallet',
  async read(db, network) {
    const gas = await gasWalletStatus(db, network);
    return {
      json: { address: gas.address ?? null, balance_wei: gas.balance, balance: gas.balanceCoin, low: gas.low, low_below_wei: gas.threshold, checked_at: gas.checkedAt?.toISOString() ?? null },
      text: [gas.address === undefined
        ? 'gas wallet: not known yet (forwarding has not started on this network)'
        : `gas wallet: ${gas.address}, ${gas.balanceCoin ?? 'balance not read yet'}${gas.low ? ' — LOW: fund it' : ''}`],
    };
  },
};

/** Whether forwards can happen, as the processor tells the service; the forwards late (failed ones are listed above). */
export const forwardingHealthSection: StatusSection = {
  name: 'forwarding',
  async read(db, network, _tokens, now) {
    const health = await forwardingHealth(db, network, now);
    const late = health.delayed.filter((each) => each.state === 'pending');
    return {
      json: {
        healthy: health.healthy, trouble: health.trouble, problem: health.problem, failed: health.failed, late: health.late,
        late_after_minutes: FORWARD_LATE_AFTER_MS / 60_000,
        delayed: health.delayed.map((each) => ({
          forward_id: each.forwardId, payment_id: each.paymentId, deposit_address: each.depositAddress, state: each.state, since: each.since.toISOString(), reason: each.reason,
        })),
      },
      text: [
        health.healthy ? 'forwarding: ok' : `forwarding: CANNOT HAPPEN: ${health.problem}`,
        ...late.map((each) => `  late: ${each.paymentId} (${each.depositAddress}) since ${each.since.toISOString()}: ${each.reason}`),
      ],
    };
  },
};

/** The sections forwarding adds to each network's status. */
export const forwardingSections: StatusSection[] = [depositsAwaitingForward, forwardsSection, gasWalletSection, forwardingHealthSection];
