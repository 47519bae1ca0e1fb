import { randomUUID } from 'node:crypto';
import { SECOND, unixSeconds, type Clock } from '../core/clock.ts';
import type { NetworkConfig, NetworkName } from '../core/networks-config.ts';
import type { Db } from '../db/database.ts';
import type { DepositAddresses } from '../core/deposit-addresses.ts';
import { publicText } from '../core/public-text.ts';
import { ChainClient, type ChainClientOptions } from './chain/chain-client.ts';
import { DEFAULT_POLL_MS, startDetection, type Detection } from './detection/detection.ts';
import type { DetectorOptions } from './detection/detector.ts';
import { NetworkLocks } from './operating/network-locks.ts';
import { confirmFinalTransfers, deliverDueNotices, postNotice, type NoticeSender } from './notices/outbox.ts';
import { recordUnfinalDeposits } from './detection/unfinal.ts';
import { findMissingDepositIndexes } from './detection/watched-addresses.ts';
import { ForwardChain } from './chain/forward-chain.ts';
import { CHECK_EVERY_MS, checkNetwork, type NetworkVerdict } from './chain/network-checks.ts';
import { forwardingHealth } from './forwarding/forwarding-health.ts';
import { cursorAheadOfHead } from './operating/status.ts';
import { listenForNotifications } from '../db/notifications.ts';

// The processor (issue 22) as its role runs it. Each poll, for every network whose lock this
// processor holds: scan to the final block, enqueue deposit.confirmed for what became final,
// forward; then deliver the notices that are due. Every STATUS_EVERY_MS it tells the service which
// networks it watches and whether they are healthy (a signed processor.status notice): the
// service offers buyers only networks a healthy processor watched recently. A network whose scans
// fail is retried with backoff (retryWaitMs) and reported unhealthy meanwhile; the others go on.
// Each network's configuration is checked against its chain at start and every CHECK_EVERY_MS
// (10 minutes): a network that fails is not worked, and is reported unhealthy with the check's sentence.

export const STATUS_EVERY_MS = 15 * SECOND;
/** A network's pass interval while a buyer waits on it (an x402 submission on its way). */
export const HURRY_MS = 250;
/** The longest wait between a failing network's tries. */
export const MAX_RETRY_WAIT_MS = 60 * SECOND;
/** A network is healthy when its last successful scan is this recent, in polls (and at least 30 s). */
const HEALTHY_WITHIN_POLLS = 3;

export interface NetworkHealth {
  network: NetworkName;
  /** This processor holds the network's lock and works it. */
  active: boolean;
  lastScanAt: Date | null;
  /** The cursor after the last successful scan: every block before it is scanned. */
  cursorBlock: bigint | null;
  lastError: string | null;
  /** Scans failed in a row (a probe that failed counts): the wait before the next try grows with them. */
  failures: number;
  /** Why the configuration check refuses the network (or could not run); null once it passed. */
  configProblem: string | null;
}

/**
 * The wait after `failures` failed scans in a row: one poll, then doubling to a minute (at the
 * default 2 s poll: 2 s, 4 s, 8 s, 16 s, 32 s, then every 60 s). Each try after the first failure
 * is a probe of every URL once (the chain id) before a whole scan: cheap while the node is down.
 */
export function retryWaitMs(failures: number, pollMs: number): number {
  return failures === 0 ? 0 : Math.min(pollMs * 2 ** (failures - 1), Math.max(MAX_RETRY_WAIT_MS, pollMs));
}

export interface Processor {
  detection: Detection;
  /** One poll now (tests; the loop calls it too). */
  poll(): Promise<void>;
  /** Sends the status notice now (tests; the loop sends it every STATUS_EVERY_MS). */
  reportStatus(): Promise<void>;
  health(): NetworkHealth[];
  stop(): Promise<void>;
}

/** A step run for each network this processor holds, after the scan (forwarding). */
export type NetworkStep = (network: NetworkConfig) => Promise<void>;

export async function startProcessor(deps: {
  db: Db;
  databaseUrl: string;
  clock: Clock;
  networks: NetworkConfig[];
  sender: NoticeSender;
  /** The account xpub's addresses, to find the child index of deposit addresses started before it was kept. */
  deposits: DepositAddresses;
  /** Run for each held network after its scan and its notices (forwarding). */
  steps?: NetworkStep[];
}, options: {
  pollMs?: number;
  statusEveryMs?: number;
  /** How often each network's configuration is checked again (default CHECK_EVERY_MS, 10 minutes, by the injected clock). */
  checkEveryMs?: number;
  /** Poll and report only when called (tests). */
  manual?: boolean;
  /** Whether a network has something a buyer waits for on its way (an x402 submission): its passes come every HURRY_MS instead of every poll. */
  hurry?: (network: NetworkName) => boolean;
  rpc?: ChainClientOptions;
  detector?: DetectorOptions;
  log?: (line: string) => void;
} = {}): Promise<Processor> {
  const log = options.log ?? ((line: string) => console.error(line));
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const detection = await startDetection(
    { db: deps.db, databaseUrl: deps.databaseUrl, clock: deps.clock, networks: deps.networks },
    { rpc: options.rpc, detector: options.detector, log },
  );
  const locks = new NetworkLocks(deps.databaseUrl, log);
  const clients = new Map(deps.networks.map((network) => [network.name, new ChainClient(network, options.rpc)]));
  const found = await findMissingDepositIndexes(deps.db, deps.deposits);
  if (found > 0) log(`[processor] found the child index of ${found} deposit address(es) started before indexes were kept`);
  const health = new Map<NetworkName, NetworkHealth>(deps.networks.map((network) => [network.name, {
    network: network.name, active: false, lastScanAt: null, cursorBlock: null, lastError: null, failures: 0, configProblem: null,
  }]));
  // Every text the processor says or stores: the first line, URLs cut to their origin.
  const problem = (error: unknown) => publicText(error);
  /** When each failing network is tried next (real time, as the loop's timer runs). */
  const retryAt = new Map<NetworkName, number>();

  // Each network's last configuration verdict: only a network whose checks passed is scanned, credited and forwarded.
  const checkChains = new Map(deps.networks.map((network) => [network.name, new ForwardChain(network, options.rpc)]));
  const verdicts = new Map<NetworkName, { verdict: NetworkVerdict; at: number }>();
  const checkEveryMs = options.checkEveryMs ?? CHECK_EVERY_MS;
  const check = async (network: NetworkConfig) => {
    const verdict = await checkNetwork(checkChains.get(network.name)!);
    const before = verdicts.get(network.name)?.verdict;
    verdicts.set(network.name, { verdict, at: deps.clock.now().getTime() });
    // A node that did not answer is an outage, not a refusal: the scan's failure says it (with its backoff).
    health.get(network.name)!.configProblem = verdict.state === 'refused' ? verdict.problem : null;
    const said = (other: NetworkVerdict | undefined) => (other === undefined || other.state === 'ok' ? other?.state : other.problem);
    if (verdict.state !== 'ok' && said(before) !== verdict.problem) log(`[processor] ${network.name} ${verdict.state === 'refused' ? 'refused' : 'not checked'}: ${verdict.problem}`);
    if (verdict.state === 'ok' && before !== undefined && before.state !== 'ok') log(`[processor] ${network.name}: its configuration checks pass again`);
  };
  // A node that did not answer is asked again next poll; a verdict holds checkEveryMs.
  const checkDue = (network: NetworkConfig) => {
    const last = verdicts.get(network.name);
    if (last?.verdict.state === 'unchecked') return Date.now() >= (retryAt.get(network.name) ?? 0);
    return !last || deps.clock.now().getTime() - last.at >= checkEveryMs;
  };
  const checked = (network: NetworkConfig) => {
    const verdict = verdicts.get(network.name)?.verdict;
    return verdict?.state === 'ok' ? verdict.network : undefined;
  };
  // The first checks: awaited when polls are asked for (tests, the status command); the loop does
  // not wait for them to start, each network's first pass awaits its own (a node that hangs at
  // start holds up its own network only).
  const firstChecks = new Map(deps.networks.map((network) => [network.name, check(network)]));
  if (options.manual) await Promise.all(firstChecks.values());

  const deliver = () => deliverDueNotices(deps.db, deps.clock, deps.sender, { log })
    .catch((error: unknown) => log(`[processor] delivering notices failed: ${problem(error)}`));

  /**
   * One network's pass: its configuration checked when due, its chain scanned, what is final
   * confirmed and told, then forwarded. `onlyDue` (the loop): a failing network is skipped until
   * its wait is over; a poll asked for (tests) tries every one.
   */
  const networkPass = async (detector: Detection['detectors'][number], held: Set<string>, onlyDue: boolean) => {
    const network = detector.network;
    const state = health.get(network.name)!;
    state.active = held.has(network.name);
    if (!state.active) return;
    await firstChecks.get(network.name);
    if (checkDue(network)) await check(network);
    // A refused network is not worked; one whose node did not answer the checks is scanned (its
    // failure drives the backoff and says why), but credits and forwards nothing until they pass.
    if (verdicts.get(network.name)?.verdict.state === 'refused') return;
    if (onlyDue && Date.now() < (retryAt.get(network.name) ?? 0)) return;
    try {
      // After a failure, one quick try of every URL first: a node still down costs one request per URL.
      if (state.failures > 0) await detector.probe();
      const scanned = await detector.scan();
      if (state.failures > 0) log(`[processor] ${network.name}: scanning again after ${state.failures} failed tries`);
      state.lastScanAt = deps.clock.now();
      state.cursorBlock = scanned.nextBlock;
      state.lastError = null;
      state.failures = 0;
      retryAt.delete(network.name);
    } catch (error) {
      // The next try scans again from the same cursor; the status says why meanwhile.
      state.lastError = problem(error);
      state.failures += 1;
      const wait = retryWaitMs(state.failures, pollMs);
      retryAt.set(network.name, Date.now() + wait);
      log(`[processor] ${network.name}: scan failed (${state.failures} in a row; next try in ${Math.round(wait / 1000)} s): ${state.lastError}`);
    }
    const verified = checked(network);
    if (verified) await confirmFinalTransfers(deps.db, deps.clock, verified).catch((error: unknown) => log(`[processor] ${network.name}: ${problem(error)}`));
    if (state.failures === 0) {
      // For the status only: a failure here costs nothing but its count.
      await recordUnfinalDeposits(deps.db, deps.clock, clients.get(network.name)!, network, detection.watched)
        .catch((error: unknown) => log(`[processor] ${network.name}: reading deposits not final yet failed: ${problem(error)}`));
    }
    // The deposits found are told before anything is forwarded: a buyer's page turns paid without waiting for gas.
    await deliver();
    // A network waiting out its node's failures is not forwarded either: forwarding needs the same node.
    if ((deps.steps ?? []).length === 0 || state.failures > 0 || !verified) return;
    for (const step of deps.steps ?? []) {
      await step(network).catch((error: unknown) => log(`[processor] ${network.name}: ${problem(error)}`));
    }
    await deliver();
  };

  // Each network's pass runs on its own: a node that hangs holds up its own network's next pass
  // (started a poll interval after its last one ends), never another network's.
  const inFlight = new Map<NetworkName, Promise<void>>();
  /** The networks that finished a pass since the start: the first status waits for each (or STATUS_EVERY_MS), so it says what was found. */
  const passed = new Set<NetworkName>();
  /** The loop's: when each network's next pass is due, a poll interval after its last one ended. */
  const nextPassAt = new Map<NetworkName, number>();
  /** Networks woken while their pass ran: passed again at once. */
  const woken = new Set<NetworkName>();
  // A buyer's x402 authorization claimed (NOTIFY x402_authorizations, migrations/0050) is waited
  // for by the buyer's request: every network's next pass is due now, not a poll later.
  const wake = () => {
    for (const network of deps.networks) {
      if (inFlight.has(network.name)) woken.add(network.name);
      else nextPassAt.set(network.name, 0);
    }
  };
  const listener = options.manual ? undefined : listenForNotifications(deps.databaseUrl, [{ name: 'x402_authorizations', onNotice: wake, onGap: wake }]);
  const startedAt = Date.now();
  /** Starts the pass of each network named (every one by default) that is not running; answers them. */
  const startPasses = async (onlyDue: boolean, names?: ReadonlySet<string>) => {
    const held = await locks.take(deps.networks.map((network) => network.name));
    return detection.detectors.filter((detector) => names === undefined || names.has(detector.network.name)).map((detector) => {
      const name = detector.network.name;
      const running = inFlight.get(name);
      if (running) return running;
      const pass = networkPass(detector, held, onlyDue)
        .catch((error: unknown) => log(`[processor] ${name}: ${problem(error)}`))
        .finally(() => {
          inFlight.delete(name);
          passed.add(name);
          const wait = options.hurry?.(name) ? Math.min(pollMs, HURRY_MS) : pollMs;
          nextPassAt.set(name, woken.delete(name) ? 0 : Date.now() + wait);
        });
      inFlight.set(name, pass);
      return pass;
    });
  };
  /** A poll asked for (tests, the status command): every network's pass, waited for. */
  const poll = async () => {
    await Promise.all(await startPasses(false));
  };

  const healthy = (state: NetworkHealth) => state.active && state.configProblem === null && state.lastError === null && state.lastScanAt !== null
    && deps.clock.now().getTime() - state.lastScanAt.getTime() <= Math.max(HEALTHY_WITHIN_POLLS * pollMs, 30 * SECOND);

  const reportStatus = async () => {
    const active = deps.networks.filter((network) => health.get(network.name)!.active);
    const now = deps.clock.now();
    // The head and final block the last scans saw (processor.network_scans), as the status command shows them.
    const observed = active.length === 0 ? [] : await deps.db.selectFrom('processor.network_scans')
      .select(['network', 'head_block', 'final_block']).where('network', 'in', active.map((network) => network.name)).execute();
    const networks = await Promise.all(active.map(async (network) => {
      const state = health.get(network.name)!;
      const seen = observed.find((row) => row.network === network.name);
      const block = (value: number | null | undefined) => (value === null || value === undefined ? null : String(value));
      const problem = healthy(state) ? cursorAheadOfHead(state.cursorBlock, seen?.head_block) : state.configProblem ?? state.lastError ?? 'No successful scan recently.';
      const forwarding = await forwardingHealth(deps.db, network.name, now);
      return {
        network: network.name, chain_id: network.chainId, coins: [...new Set(network.tokens.map((token) => token.coin))],
        healthy: problem === null, head_block: block(seen?.head_block), final_block: block(seen?.final_block),
        cursor_block: state.cursorBlock === null ? null : state.cursorBlock.toString(),
        problem,
        forwarding: {
          healthy: forwarding.healthy, trouble: forwarding.trouble, problem: forwarding.problem,
          delayed: forwarding.delayed.map((each) => ({
            payment_id: each.paymentId, deposit_address: each.depositAddress, state: each.state, since: unixSeconds(each.since), reason: each.reason,
          })),
        },
      };
    }));
    // A processor standing by (every lock held by another) says nothing: the active one speaks.
    if (networks.length === 0) return;
    const body = JSON.stringify({ id: `status:${randomUUID()}`, type: 'processor.status', sent_at: unixSeconds(now), networks });
    // Not retried: the next status, STATUS_EVERY_MS later, says the same or newer.
    const delivery = await postNotice(deps.sender, body, now);
    if (delivery.state !== 'delivered') log(`[processor] the status was not taken: ${problem(delivery.answer)}`);
  };

  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let lastStatusAt = 0;
  // The loop looks often (a quarter of a poll, at most 250 ms) and starts each network's pass when
  // it is due, and sends the status when it is (the first once every network's first pass ended,
  // or STATUS_EVERY_MS after the start, whichever comes first).
  const lookEveryMs = Math.max(1, Math.min(250, Math.floor(pollMs / 4)));
  const loop = () => {
    if (stopped) return;
    running = (async () => {
      const due = new Set(detection.detectors.map((detector) => detector.network.name)
        .filter((name) => !inFlight.has(name) && Date.now() >= (nextPassAt.get(name) ?? 0)));
      if (due.size > 0) await startPasses(true, due);
      const statusEveryMs = options.statusEveryMs ?? STATUS_EVERY_MS;
      const firstPassesDone = detection.detectors.every((detector) => passed.has(detector.network.name));
      if (Date.now() - lastStatusAt >= statusEveryMs && (firstPassesDone || Date.now() - startedAt >= statusEveryMs)) {
        lastStatusAt = Date.now();
        await reportStatus();
      }
    })().catch((error: unknown) => log(`[processor] poll failed: ${problem(error)}`)).finally(() => {
      if (!stopped) timer = setTimeout(loop, lookEveryMs);
    });
  };
  if (!options.manual) loop();

  return {
    detection,
    poll,
    reportStatus,
    health: () => [...health.values()].map((state) => ({ ...state })),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await Promise.all(inFlight.values());
      await listener?.close();
      await locks.close();
      await detection.stop();
    },
  };
}
