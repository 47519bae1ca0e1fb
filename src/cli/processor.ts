import { forwardingSections } from '../processor/forwarding/forwarding-status.ts';
import { x402Section } from '../processor/x402/submission-status.ts';
import { depositsWaitingForFinality } from '../processor/detection/unfinal.ts';
import { cursorAheadOfHead, networkStatuses, reportedNetworks, scanHealth, scannedWithinMs, type NetworkStatus, type StatusSection } from '../processor/operating/status.ts';
import { isServed, networkReports, type NetworkReport } from '../resources/networks/served.ts';
import { ApiError, StartupError } from '../core/errors.ts';
import type { SweepOutcome, SweepPlan } from '../processor/forwarding/sweep.ts';
import { oneOf, required, type Command } from './command.ts';

// `processor status`: each network as the processor last saw it, from the database alone (no
// RPC), so it answers from any machine that reaches the database, and while the nodes are down.
// Its health is the buyers' (the service offers a network only while the processor's latest
// report says healthy within PROCESSOR_STATUS_FRESH_SECONDS), so it never says healthy while Live
// starts are refused; a cursor past the chain's head (a restarted chain) is never healthy either.

/** What each network shows beyond its scan; forwarding adds forwardsSummary and gasWalletStatus here. */
export const statusSections: StatusSection[] = [depositsWaitingForFinality, ...forwardingSections, x402Section];

const iso = (date: Date | null) => date?.toISOString() ?? null;
const ageSeconds = (date: Date | null, now: Date) => date === null ? null : Math.max(0, Math.round((now.getTime() - date.getTime()) / 1000));

type Health = 'ok' | 'never' | 'cursor_ahead' | 'stale' | 'not_served';

/** The network's health and, when not ok, why: the scans first, then what the service makes of the processor's reports. */
function healthOf(status: NetworkStatus, report: NetworkReport | undefined, now: Date, withinMs: number, freshSeconds: number): { health: Health; problem: string | null } {
  const scan = scanHealth(status, now, withinMs);
  // Why no scan happens, when the processor said (a configuration it refused, a node that does not answer).
  const said = report !== undefined && !report.healthy && report.problem !== null ? ` The processor says: ${report.problem.replace(/\.+$/, '')}.` : '';
  if (scan === 'never') return { health: 'never', problem: `Never scanned.${said}` };
  const ahead = cursorAheadOfHead(status.cursor, status.headBlock);
  if (ahead !== null) return { health: 'cursor_ahead', problem: ahead };
  if (scan === 'stale') return { health: 'stale', problem: `No scan reached the final block in the last ${withinMs / 60_000} minutes.${said}` };
  if (report === undefined) return { health: 'not_served', problem: 'The service has no status report of it: Live starts do not offer it.' };
  if (!isServed(report, now, freshSeconds)) {
    return {
      health: 'not_served',
      problem: report.healthy
        ? `Its last status report is older than PROCESSOR_STATUS_FRESH_SECONDS (${freshSeconds} s): Live starts do not offer it.`
        : `The processor reported it unhealthy: ${(report.problem ?? 'no reason given').replace(/\.+$/, '')}. Live starts do not offer it.`,
    };
  }
  return { health: 'ok', problem: null };
}

function asJson(status: NetworkStatus, configured: boolean, now: Date, health: { health: Health; problem: string | null }, report: NetworkReport | undefined, freshSeconds: number) {
  return {
    network: status.network,
    configured,
    chain_id: status.chainId,
    health: health.health,
    problem: health.problem,
    served_to_buyers: report !== undefined && isServed(report, now, freshSeconds),
    last_report: report === undefined ? null : {
      healthy: report.healthy, problem: report.problem, at: iso(report.reported_at), age_seconds: ageSeconds(report.reported_at, now),
    },
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

function asText(json: ReturnType<typeof asJson>, sections: string[], now: Date): string {
  const block = (value: number | null) => value === null ? 'unknown' : String(value);
  const age = (seconds: number | null) => seconds === null ? '' : ` (${seconds} s ago)`;
  const error = json.last_error;
  const report = json.last_report;
  const lines = [
    `${json.network}${json.chain_id === null ? '' : ` (chain id ${json.chain_id})`}: ${json.health === 'ok' ? 'healthy' : `NOT HEALTHY: ${json.problem}`}`,
    `  offered to Live buyers: ${json.served_to_buyers ? 'yes' : 'no'}; last status report: ${report === null ? 'none' : `${report.healthy ? 'healthy' : `unhealthy (${report.problem ?? 'no reason given'})`}, ${report.at}${age(report.age_seconds)}`}`,
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

const NETWORK_NAMES = ['polygon', 'base', 'ethereum'] as const;

/** Base units in the token's decimals when it said them (as formatUnits writes them, without loading viem here). */
function inUnits(value: bigint, decimals: number | null): string {
  if (decimals === null || decimals === 0) return value.toString();
  const scale = 10n ** BigInt(decimals);
  const fraction = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${value / scale}${fraction === '' ? '' : `.${fraction}`}`;
}

function planJson(plan: SweepPlan) {
  return {
    network: plan.network, deposit_address: plan.depositAddress, payment_id: plan.paymentId, token: plan.token,
    symbol: plan.symbol, decimals: plan.decimals, configured_token: plan.configured, block: Number(plan.block),
    balance: plan.balance.toString(), held_back: plan.heldBack.toString(), amount: plan.amount.toString(), amount_formatted: inUnits(plan.amount, plan.decimals),
    from: plan.depositAddress, to: plan.to, destination: plan.destination,
    gas: { limit: Number(plan.gas), price_wei: plan.gasPrice.toString(), top_up_wei: plan.topUp.toString(), cost_estimate_wei: plan.costEstimate.toString(), cost_estimate: inUnits(plan.costEstimate, 18), gas_wallet: plan.gasWallet.toLowerCase() },
  };
}

function planText(plan: SweepPlan): string {
  const name = plan.symbol ?? plan.token;
  const lines = [
    `${inUnits(plan.amount, plan.decimals)} ${name} (${plan.amount} base units of ${plan.token}${plan.configured ? ', a token configured for deposits' : ', not a configured deposit token'})`,
    `  from the deposit address ${plan.depositAddress} (payment ${plan.paymentId}) on ${plan.network}`,
    `  to the ${plan.destination === 'merchant' ? "merchant's payout wallet" : "operator's fee wallet"} ${plan.to}`,
    `  balance at block ${plan.block}: ${inUnits(plan.balance, plan.decimals)}${plan.heldBack > 0n ? `, of which ${inUnits(plan.heldBack, plan.decimals)} arrived after detection's last scanned block and is left to forwarding` : ''}`,
    `  gas: ${plan.gas} at ${plan.gasPrice} wei; the gas wallet ${plan.gasWallet.toLowerCase()} ${plan.topUp > 0n ? `sends the deposit address ${inUnits(plan.topUp, 18)} first` : 'sends nothing (the address holds enough)'}; about ${inUnits(plan.costEstimate, 18)} of the native coin in all`,
  ];
  return lines.join('\n');
}

function outcomeJson(outcome: SweepOutcome) {
  const { sweep } = outcome;
  return {
    sweep_id: sweep.id, state: sweep.state, mined: outcome.mined, resumed: outcome.resumed,
    network: sweep.network, deposit_address: sweep.deposit_address, token: sweep.token, amount: sweep.amount, to: sweep.to_address, destination: sweep.destination,
    top_up_tx_hash: sweep.top_up_hash, tx_hash: sweep.transfer_hash, block: sweep.block_number,
  };
}

export const processorCommands: Record<string, Command> = {
  'processor sweep': {
    usage: 'processor sweep --network polygon|base|ethereum --address DEPOSIT_ADDRESS --token CONTRACT --to merchant|operator [--yes] [--json]   (a stray token from a deposit address; without --yes only says what it would do)',
    description: 'moves a stray token (one no forward covers: a token not configured for the network, or what is left of a configured one) from a watched deposit address to its payment\'s payout wallet (`merchant`) or `PROCESSOR_FEE_WALLET` (`operator`). Runs with the processor\'s configuration: it loads the deposit seed as the processor role does (`PROCESSOR_SEED_FILE`, else `DATA_DIR/deposit-wallet.seed`) and needs the network\'s RPC URL. Without `--yes` it only says what it would do: the token (symbol and decimals when it answers), the amount from `balanceOf` at the latest block, from, to and the gas it costs → `{ "dry_run": true, "network", "deposit_address", "payment_id", "token", "symbol", "decimals", "configured_token", "block", "balance", "held_back", "amount", "amount_formatted", "from", "to", "destination", "gas": { "limit", "price_wei", "top_up_wei", "cost_estimate_wei", "cost_estimate", "gas_wallet" } }`. With `--yes` the gas wallet sends the address the exact gas, the address sends `transfer(to, amount)`, both written down before signing and stored before broadcast (`processor.sweeps`); it waits for the transfer to be mined (not final) and prints its hash → the same with `"dry_run": false, "sweep_id", "state": "mined", "mined", "resumed", "tx_hash", "top_up_tx_hash"`. Refused (exit 1, nothing sent): an address not watched, `merchant` for a payment without payout wallet, a zero balance, a token with a forward not final (planned, sending, failed) or a final deposit not forwarded yet at that address: forwarding moves those. Of a configured token, what arrived after detection\'s last scanned block is held back. A sweep not seen mined (or a command that died) is finished by running the same command again',
    options: { network: { type: 'string' }, address: { type: 'string' }, token: { type: 'string' }, to: { type: 'string' }, yes: { type: 'boolean' } },
    async run(context, flags, _positionals, say) {
      const networkName = oneOf(required(flags, 'network'), NETWORK_NAMES, 'network')!;
      const address = required(flags, 'address');
      const token = required(flags, 'token');
      const to = oneOf(required(flags, 'to'), ['merchant', 'operator'] as const, 'to')!;
      const { config, db, clock } = context;
      const network = config.networks.find((candidate) => candidate.name === networkName);
      if (!network) throw new ApiError('invalid_state', `${networkName} is not configured here: set ${networkName.toUpperCase()}_RPC_URL as the processor has it.`);
      // Loaded only here: every other command (and processor status) stays without viem and keys.
      const [{ loadProcessorKeys }, { ForwardChain }, sweep] = await Promise.all([
        import('../processor/chain/keys.ts'), import('../processor/chain/forward-chain.ts'), import('../processor/forwarding/sweep.ts'),
      ]);
      let keys;
      try {
        keys = await loadProcessorKeys({ seedFile: config.processor.seedFile, dataDir: config.dataDir, serviceXpub: context.deposits.xpub });
      } catch (error) {
        if (error instanceof StartupError) throw new ApiError('invalid_state', error.message);
        throw error;
      }
      const deps = {
        db, clock, network, chain: new ForwardChain(network), keys, feeWallet: config.processor.feeWallet,
        log: say,
      };
      const request = { address, token, to };
      if (flags.yes !== true) {
        const open = await sweep.openSweep(db, network.name, address);
        if (open) {
          return {
            json: { dry_run: true, open_sweep: { sweep_id: open.id, state: open.state, token: open.token, amount: open.amount, to: open.to_address, tx_hash: open.transfer_hash } },
            text: `Sweep ${open.id} of ${open.amount} of ${open.token} from ${open.deposit_address} to ${open.to_address} is still ${open.state}: run the command with --yes (same token and --to) to finish it.`,
          };
        }
        const plan = await sweep.planSweep(deps, request);
        return { json: { dry_run: true, ...planJson(plan) }, text: `Would sweep ${planText(plan)}\nNothing was sent: run it again with --yes to do it.` };
      }
      const outcome = await sweep.executeSweep(deps, request);
      const json = { dry_run: false, ...(outcome.plan ? planJson(outcome.plan) : {}), ...outcomeJson(outcome) };
      const { sweep: row } = outcome;
      const head = outcome.plan ? `Swept ${planText(outcome.plan)}` : `Sweep ${row.id} resumed: ${row.amount} of ${row.token} from ${row.deposit_address} to ${row.to_address}`;
      const tail = outcome.mined
        ? `Mined in block ${row.block_number}: ${row.transfer_hash}${row.top_up_hash ? ` (gas top-up ${row.top_up_hash})` : ''}. It is final once the chain finalizes that block.`
        : `Sweep ${row.id} is broadcast (${row.transfer_hash}) and not mined yet: run the same command again to follow it.`;
      return { json, text: `${head}\n${tail}` };
    },
  },

  'processor status': {
    usage: 'processor status [--json]   (each network: healthy as buyers see it, head, final block, cursor lag, watched addresses, deposits awaiting forward, forwards failed or late and why, last scan and error)',
    description: 'each network the processor watches, from the database alone (no RPC; only `DATABASE_URL` or `DATA_DIR` needed): health as buyers see it (`ok`, `never`, `cursor_ahead`, `stale`, `not_served`, with the `problem` in words), whether Live buyers are offered it and its last status report, forwarding (failed and late forwards, each with its payment and reason), head, final block, cursor and its lag in blocks, watched addresses, deposits awaiting forward, last scan and its age, last error, the balance reconciliation\'s last pass and findings → `{ "networks": [{ "network", "health", "head_block", "final_block", "cursor", "lag_blocks", "watched_addresses", "last_scan_at", "last_error", … }] }`',
    options: {},
    async run(context) {
      const { db, config } = context;
      const now = context.clock.now();
      const withinMs = scannedWithinMs(config.processorPollMs);
      const freshSeconds = config.processorStatusFreshSeconds;
      const names = await reportedNetworks(db, config.networks);
      const [statuses, reports] = await Promise.all([networkStatuses(db, now, names), networkReports(db)]);
      const networks = await Promise.all(statuses.map(async (status) => {
        const configured = config.networks.find((network) => network.name === status.network);
        const report = reports.find((each) => each.network === status.network);
        const scan = asJson(status, configured !== undefined, now, healthOf(status, report, now, withinMs, freshSeconds), report, freshSeconds);
        const json: Record<string, unknown> = { ...scan };
        const lines: string[] = [];
        for (const section of statusSections) {
          const read = await section.read(db, status.network, configured?.tokens ?? [], now);
          json[section.name] = read.json;
          lines.push(...read.text);
        }
        return { json, text: asText(scan, lines, now) };
      }));
      return {
        json: { networks: networks.map((network) => network.json) },
        text: networks.map((network) => network.text).join('\n\n')
          || 'No network is configured or scanned yet: set POLYGON_RPC_URL, BASE_RPC_URL or ETHEREUM_RPC_URL and start the processor (npm start -- --role processor).',
      };
    },
  },
};
