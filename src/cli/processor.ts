import { depositsAwaitingForward, networkStatuses, reportedNetworks, scanHealth, scannedWithinMs, type NetworkStatus, type StatusSection } from '../processor/status.ts';
import type { Command } from './command.ts';

// `processor status`: each network as the processor last saw it, from the database alone (no
// RPC), so it answers from any machine that reaches the database, and while the nodes are down.

/** What each network shows beyond its scan; forwarding adds forwardsSummary and gasWalletStatus here. */
export const statusSections: StatusSection[] = [depositsAwaitingForward];

const iso = (date: Date | null) => date?.toISOString() ?? null;
const ageSeconds = (date: Date | null, now: Date) => date === null ? null : Math.max(0, Math.round((now.getTime() - date.getTime()) / 1000));

function asJson(status: NetworkStatus, configured: boolean, now: Date, withinMs: number) {
  return {
    network: status.network,
    configured,
    chain_id: status.chainId,
    health: scanHealth(status, now, withinMs),
    head_block: status.headBlock,
    final_block: status.finalBlock,
    cursor: status.cursor,
    lag_blocks: status.lagBlocks,
    watched_addresses: status.watchedAddresses,
    last_scan_at: iso(status.lastScanAt),
    last_scan_age_seconds: ageSeconds(status.lastScanAt, now),
    last_error: status.lastError === null ? null : { message: status.lastError.message, at: iso(status.lastError.at) },
    scan_errors: status.scanErrors,
    transfers_recorded: status.transfersRecorded,
    reconciliation: {
      last_at: iso(status.reconciledAt),
      last_block: status.reconciledBlock,
      recovered: status.findings.recovered,
      unexplained: status.findings.unexplained,
    },
  };
}

const healthWords = (withinMs: number) => ({
  ok: 'healthy',
  stale: `no scan reached the final block in the last ${withinMs / 60_000} minutes`,
  never: 'never scanned',
}) as const;

function asText(json: ReturnType<typeof asJson>, sections: string[], now: Date, withinMs: number): string {
  const block = (value: number | null) => value === null ? 'unknown' : String(value);
  const age = (seconds: number | null) => seconds === null ? '' : ` (${seconds} s ago)`;
  const error = json.last_error;
  const lines = [
    `${json.network}${json.chain_id === null ? '' : ` (chain id ${json.chain_id})`}: ${healthWords(withinMs)[json.health]}${json.configured ? '' : ' (not configured here)'}`,
    `  head ${block(json.head_block)}, final ${block(json.final_block)}, cursor ${block(json.cursor)}, lag ${json.lag_blocks === null ? 'unknown' : `${json.lag_blocks} block${json.lag_blocks === 1 ? '' : 's'}`}`,
    `  watched addresses: ${json.watched_addresses}`,
    `  last scan: ${json.last_scan_at ?? 'never'}${age(json.last_scan_age_seconds)}`,
    `  last error: ${error === null ? 'none' : `${error.at}${age(ageSeconds(new Date(error.at!), now))}: ${error.message}`}`,
    `  scan errors: ${json.scan_errors}, transfers recorded: ${json.transfers_recorded}`,
    `  reconciliation: ${json.reconciliation.last_at === null ? 'not run yet' : `last at block ${json.reconciliation.last_block}, ${json.reconciliation.last_at}`}; found ${json.reconciliation.recovered} recovered, ${json.reconciliation.unexplained} unexplained`,
    ...sections.map((line) => `  ${line}`),
  ];
  return lines.join('\n');
}

export const processorCommands: Record<string, Command> = {
  'processor status': {
    usage: 'processor status [--json]   (each network: head, final block, cursor lag, watched addresses, deposits awaiting forward, last scan and error)',
    options: {},
    async run(context) {
      const { db, config } = context;
      const now = context.clock.now();
      const withinMs = scannedWithinMs(config.processorPollMs);
      const names = await reportedNetworks(db, config.networks);
      const statuses = await networkStatuses(db, now, names);
      const networks = await Promise.all(statuses.map(async (status) => {
        const configured = config.networks.find((network) => network.name === status.network);
        const scan = asJson(status, configured !== undefined, now, withinMs);
        const json: Record<string, unknown> = { ...scan };
        const lines: string[] = [];
        for (const section of statusSections) {
          const read = await section.read(db, status.network, configured?.tokens ?? []);
          json[section.name] = read.json;
          lines.push(...read.text);
        }
        return { json, text: asText(scan, lines, now, withinMs) };
      }));
      return {
        json: { networks: networks.map((network) => network.json) },
        text: networks.map((network) => network.text).join('\n\n')
          || 'No network is configured or scanned yet: set POLYGON_RPC_URL, BASE_RPC_URL or ETHEREUM_RPC_URL and start the processor (npm start -- --role processor).',
      };
    },
  },
};
