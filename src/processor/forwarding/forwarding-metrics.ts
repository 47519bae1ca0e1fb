import { Gauge, type Registry } from 'prom-client';
import { withTimeout } from '../../core/timeout.ts';
import type { Db } from '../../db/database.ts';
import { forwardsSummary } from './forwarding-status.ts';
import { forwardingHealth } from './forwarding-health.ts';
import { gasWalletStatus } from './gas-wallet.ts';

// Forwarding's Prometheus series beside the processor's (metrics.ts), read from the database when
// a scraper asks: forwards pending, failed and late, whether forwards can happen, and the gas
// wallet as the last forwarding pass saw it.

const SCRAPE_QUERY_TIMEOUT_MS = 5_000;

export function registerForwardingMetrics(registry: Registry, db: Db, networks: readonly string[], now: () => Date = () => new Date()): void {
  const registers = [registry];
  const labelNames = ['network'] as const;
  /** A gauge per network; NaN when the database does not answer, or the value is not known yet. */
  const gauge = (name: string, help: string, value: (network: string) => Promise<number | null>) => new Gauge({
    name, help, labelNames, registers,
    async collect() {
      for (const network of networks) {
        this.labels(network).set(await withTimeout(value(network), SCRAPE_QUERY_TIMEOUT_MS).then((read) => read ?? NaN, () => NaN));
      }
    },
  });
  gauge('processor_forwards_pending', 'Forwards planned or on their way, not yet final.', async (network) => (await forwardsSummary(db, network)).pending);
  gauge('processor_forwards_failed', 'Forwards that could not happen (the reason in processor status), tried again after a back-off.', async (network) => (await forwardsSummary(db, network)).failed);
  gauge('processor_forwards_late', 'Forwards not final 10 minutes after they were written (shown to their merchants).', async (network) => (await forwardingHealth(db, network, now())).late);
  gauge('processor_forwarding_healthy', '0 while forwards cannot happen (a forward failed or late, or a gas wallet that cannot pay for one): the operator is mailed.', async (network) => ((await forwardingHealth(db, network, now())).healthy ? 1 : 0));
  gauge('processor_gas_wallet_balance', 'The gas wallet\'s balance in the native coin, as the last forwarding pass read it.', async (network) => {
    const gas = await gasWalletStatus(db, network);
    return gas.balanceCoin === null ? null : Number(gas.balanceCoin);
  });
  gauge('processor_gas_wallet_low', '1 when the gas wallet pays for fewer than 20 forwards at the gas price of the last pass.', async (network) => {
    const gas = await gasWalletStatus(db, network);
    return gas.balance === null ? null : gas.low ? 1 : 0;
  });
}
