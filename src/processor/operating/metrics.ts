import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock.ts';
import { withTimeout } from '../../core/timeout.ts';
import type { Db } from '../../db/database.ts';
import { networkStatuses, scanFailing, type NetworkStatus } from './status.ts';

// The processor's Prometheus series, on the registry the other roles' /metrics serve (METRICS_PORT).
// Read from the database when a scraper asks, as `processor status` reads them: the scans write
// their state there, so the values are the network's, whichever processor scans it, and a
// counter (transfers recorded, scan errors, findings) keeps counting across restarts.

/** A scrape waits this long for the database before reporting the gauges as unknown (NaN). */
const SCRAPE_QUERY_TIMEOUT_MS = 5_000;

export function registerProcessorMetrics(registry: Registry, db: Db, clock: Clock, networks: readonly string[]): void {
  // Every series' collect runs at once on a scrape: they share one read.
  let reading: Promise<NetworkStatus[] | undefined> | undefined;
  const read = () => {
    reading ??= withTimeout(networkStatuses(db, clock.now(), networks), SCRAPE_QUERY_TIMEOUT_MS)
      .catch(() => undefined)
      .finally(() => setImmediate(() => { reading = undefined; }));
    return reading;
  };
  const registers = [registry];
  const labelNames = ['network'] as const;

  /** A gauge per network; NaN for each when the database does not answer, or the value is not known yet. */
  const gauge = (name: string, help: string, value: (status: NetworkStatus, now: Date) => number | null) => new Gauge({
    name, help, labelNames, registers,
    async collect() {
      const statuses = await read();
      const now = clock.now();
      for (const network of networks) {
        const status = statuses?.find((candidate) => candidate.network === network);
        this.labels(network).set(status === undefined ? NaN : (value(status, now) ?? NaN));
      }
    },
  });
  /** A counter kept in the database: set to the stored count at each scrape (unchanged when the database does not answer). */
  const counter = (name: string, help: string, value: (status: NetworkStatus) => number) => new Counter({
    name, help, labelNames, registers,
    async collect() {
      const statuses = await read();
      if (statuses === undefined) return;
      this.reset();
      for (const status of statuses) this.labels(status.network).inc(value(status));
    },
  });

  gauge('processor_head_block', 'The newest block the last scan saw, by network.', (status) => status.headBlock);
  gauge('processor_final_block', 'The newest final block the last scan saw (finalized, or head less <NETWORK>_CONFIRMATIONS).', (status) => status.finalBlock);
  gauge('processor_cursor_lag_blocks', 'Final blocks not scanned yet, as of the last head read.', (status) => status.lagBlocks);
  gauge('processor_last_successful_scan_age_seconds', 'Seconds since a scan last reached the final block; NaN before the first.',
    (status, now) => status.lastScanAt === null ? null : Math.max(0, (now.getTime() - status.lastScanAt.getTime()) / 1000));
  gauge('processor_scan_failing', '1 while the network\'s scans fail (its node down or refusing: not offered to buyers), 0 once a scan reaches the final block.',
    (status) => scanFailing(status) ? 1 : 0);
  new Gauge({
    name: 'processor_watched_addresses', help: 'Deposit addresses whose watch has not ended (one list for every network).', registers,
    async collect() {
      const statuses = await read();
      this.set(statuses === undefined ? NaN : (statuses[0]?.watchedAddresses ?? 0));
    },
  });
  counter('processor_transfers_recorded_total', 'Deposits recorded (a transfer restored after a reorganisation counts again).', (status) => status.transfersRecorded);
  counter('processor_scan_errors_total', 'Scans (or reconciliation passes) that failed; the next poll tries again.', (status) => status.scanErrors);
  new Counter({
    name: 'processor_reconciliation_findings_total',
    help: 'Balances the recorded transfers did not explain, by what the re-scan made of them (recovered: the missing transfers found and recorded).',
    labelNames: ['network', 'outcome'] as const, registers,
    async collect() {
      const statuses = await read();
      if (statuses === undefined) return;
      this.reset();
      for (const status of statuses) {
        this.labels(status.network, 'recovered').inc(status.findings.recovered);
        this.labels(status.network, 'unexplained').inc(status.findings.unexplained);
      }
    },
  });
}
