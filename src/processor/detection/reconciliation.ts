import type { Address } from 'viem';
import { DAY, HOUR, MINUTE, type Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import { RangeRefused, RpcUnavailable, type BlockHeader, type ChainClient, type TransferLog } from '../chain/chain-client.ts';
import { distinctLogs, recordTransfers } from './recorded-transfers.ts';
import { recordReconciled } from './scan-state.ts';

// The balance reconciliation (issue 22, must have 3): a node may leave a log out of an answer
// (some do near the head), and the scan never asks for those blocks again. So, at the last
// scanned block (final), the balance of each configured token of watched addresses is read and
// compared with what the logs explained: recorded transfers in minus recorded transfers out
// (forwards included: the scan records both). Where they differ, that address's blocks are
// re-scanned with a topic filter (only its transfers) from that block back to its watch's
// start, in ranges the node accepts, until the difference is explained; what was missing is
// recorded as the scan records it, once. A difference the whole window does not explain is kept
// as `unexplained`; the same difference is re-scanned again only after 10 minutes, doubling each
// time up to a day (a node may hide a recent log for a while; a token may move money without a log).
//
// Cost: a pass reads at most `addressesPerPass` addresses (round-robin over those whose watch
// has not ended), each token's balance an eth_call, BALANCE_BATCH calls to an HTTP request:
// 500 addresses × 2 tokens = 10 requests, whether 1,000 or 100,000 addresses are watched. A
// pass runs after the first scan, after a catch-up and every `everyScans` scans, so every
// watched address is read within ⌈watched ÷ addressesPerPass⌉ passes.

export const ADDRESSES_PER_PASS = 500;
export const RECONCILE_EVERY_SCANS = 15;
/** The re-scan goes this far before the watch's start (the chain's clock and ours differ a little). */
const RESCAN_MARGIN_MS = HOUR;
/** An unexplained difference is re-scanned again after this, doubling each time, up to a day. */
const RESCAN_BACKOFF_MS = 10 * MINUTE;

export interface ReconcileOptions {
  /** Scans between passes (default 15: 30 s at the default poll). */
  everyScans?: number;
  /** Addresses whose balances one pass reads (default 500). */
  addressesPerPass?: number;
}

export interface Finding {
  address: string;
  token: string;
  balance: bigint;
  /** In minus out, as recorded before the re-scan. */
  expected: bigint;
  /** Transfers the re-scan found and recorded. */
  recovered: number;
  /** `known`: the same difference was re-scanned lately and left unexplained; not re-scanned yet. */
  outcome: 'recovered' | 'unexplained' | 'known';
}

export interface ReconcileResult {
  block: bigint;
  /** The addresses whose balances were read. */
  addresses: string[];
  findings: Finding[];
}

const key = (address: string, token: string) => `${address}:${token}`;

export class Reconciler {
  readonly #db: Db;
  readonly #network: string;
  readonly #client: ChainClient;
  readonly #clock: Clock;
  readonly #tokens: Array<`0x${string}`>;
  readonly #range: () => bigint;
  readonly #perPass: number;
  readonly #everyScans: number;
  /** Scans since the last pass; undefined before the first. */
  #scansSince: number | undefined;
  /** Round-robin: the last address the previous pass read ('' from the start). */
  #after = '';

  constructor(deps: { db: Db; network: string; client: ChainClient; clock: Clock; tokens: Array<`0x${string}`>; range: () => bigint }, options: ReconcileOptions = {}) {
    this.#db = deps.db;
    this.#network = deps.network;
    this.#client = deps.client;
    this.#clock = deps.clock;
    this.#tokens = deps.tokens;
    this.#range = deps.range;
    this.#perPass = options.addressesPerPass ?? ADDRESSES_PER_PASS;
    this.#everyScans = options.everyScans ?? RECONCILE_EVERY_SCANS;
  }

  /** After a scan that reached `final`: a pass if none ran yet, after a catch-up, or every `everyScans` scans. */
  async afterScan(final: BlockHeader, { catchUp }: { catchUp: boolean }): Promise<ReconcileResult | undefined> {
    if (this.#scansSince !== undefined) this.#scansSince += 1;
    if (this.#scansSince !== undefined && !catchUp && this.#scansSince < this.#everyScans) return undefined;
    const result = await this.pass(final);
    this.#scansSince = 0;
    return result;
  }

  /** Reads the next addresses' balances at `at` (a scanned, final block) and explains each difference it can. */
  async pass(at: BlockHeader): Promise<ReconcileResult> {
    const addresses = await this.#nextAddresses(new Date(Number(at.timestamp) * 1000));
    const holdings = addresses.flatMap(({ address }) => this.#tokens.map((token) => ({ token, holder: address as Address })));
    const balances = await this.#client.balancesAt(holdings, at.number);
    const expected = await this.#expected(addresses.map((row) => row.address), at.number);
    const watchFrom = new Map(addresses.map((row) => [row.address, row.watch_from]));
    const findings: Finding[] = [];
    for (const [index, { token, holder }] of holdings.entries()) {
      const balance = balances[index]!;
      const recorded = expected.get(key(holder, token)) ?? 0n;
      if (balance !== recorded) findings.push(await this.#explain(holder, token, balance, recorded, watchFrom.get(holder)!, at));
    }
    await recordReconciled(this.#db, this.#network, at.number, this.#clock.now());
    return { block: at.number, addresses: addresses.map((row) => row.address), findings };
  }

  /** Up to perPass addresses whose watch has not ended at `time`, after the last pass's, wrapping round. */
  async #nextAddresses(time: Date): Promise<Array<{ address: string; watch_from: Date }>> {
    const limit = this.#perPass;
    const open = this.#db.selectFrom('processor.watched_addresses').select(['address', 'watch_from'])
      .where('watch_until', '>=', time).orderBy('address');
    let rows = await open.where('address', '>', this.#after).limit(limit).execute();
    if (rows.length < limit && this.#after !== '') {
      rows = [...rows, ...await open.where('address', '<=', this.#after).limit(limit - rows.length).execute()];
    }
    this.#after = rows.length < limit ? '' : rows.at(-1)!.address;
    return rows;
  }

  /** Recorded final transfers in minus out, up to `block`, by address and token. */
  async #expected(addresses: string[], block: bigint): Promise<Map<string, bigint>> {
    const totals = new Map<string, bigint>();
    if (addresses.length === 0) return totals;
    const [inbound, outgoing] = await Promise.all([
      this.#db.selectFrom('processor.transfers').select((eb) => ['to_address as address', 'token', eb.fn.sum<string>('value').as('total')])
        .where('network', '=', this.#network).where('status', '=', 'final').where('block_number', '<=', Number(block))
        .where('to_address', 'in', addresses).groupBy(['to_address', 'token']).execute(),
      this.#db.selectFrom('processor.outgoing_transfers').select((eb) => ['from_address as address', 'token', eb.fn.sum<string>('value').as('total')])
        .where('network', '=', this.#network).where('status', '=', 'final').where('block_number', '<=', Number(block))
        .where('from_address', 'in', addresses).groupBy(['from_address', 'token']).execute(),
    ]);
    for (const row of inbound) totals.set(key(row.address, row.token), BigInt(row.total));
    for (const row of outgoing) totals.set(key(row.address, row.token), (totals.get(key(row.address, row.token)) ?? 0n) - BigInt(row.total));
    return totals;
  }

  /**
   * Re-scans the address's transfers of `token` in the direction that would explain the
   * difference (more money than recorded: in; less: out), from `at` back towards its watch's
   * start, newest blocks first (where nodes drop logs), and records what it finds.
   */
  async #explain(address: string, token: `0x${string}`, balance: bigint, expected: bigint, watchFrom: Date, at: BlockHeader): Promise<Finding> {
    const finding = { address, token, balance, expected };
    const earlier = await this.#db.selectFrom('processor.balance_findings')
      .select((eb) => [eb.fn.countAll<string>().as('tries'), eb.fn.max('found_at').as('last')])
      .where('network', '=', this.#network).where('address', '=', address).where('token', '=', token)
      .where('balance', '=', balance.toString()).where('expected', '=', expected.toString()).where('outcome', '=', 'unexplained')
      .executeTakeFirstOrThrow();
    const tries = Number(earlier.tries);
    const wait = Math.min(RESCAN_BACKOFF_MS * 2 ** (tries - 1), DAY);
    if (tries > 0 && earlier.last !== null && this.#clock.now().getTime() - new Date(earlier.last).getTime() < wait) {
      return { ...finding, recovered: 0, outcome: 'known' };
    }

    const inbound = balance > expected;
    const party = inbound ? { to: address as Address } : { from: address as Address };
    let missing = inbound ? balance - expected : expected - balance;
    let recovered = 0;
    let range = this.#range();
    let to = at.number;
    const stopBefore = watchFrom.getTime() - RESCAN_MARGIN_MS;
    for (;;) {
      const from = to - range + 1n > 0n ? to - range + 1n : 0n;
      let logs: TransferLog[];
      try {
        logs = await this.#client.transferLogsOf([token], party, from, to);
      } catch (error) {
        if (!(error instanceof RangeRefused || error instanceof RpcUnavailable) || range === 1n) throw error;
        range /= 2n;
        continue;
      }
      const found = distinctLogs(logs.filter((log) => log.value > 0n && log.blockNumber <= at.number));
      const now = this.#clock.now();
      const written = await this.#db.transaction().execute((trx) =>
        recordTransfers(trx, this.#network, now, inbound ? { inbound: found, outgoing: [] } : { inbound: [], outgoing: found }));
      for (const log of inbound ? written.inbound : written.outgoing) {
        recovered += 1;
        missing -= log.value;
      }
      if (missing <= 0n || from === 0n) break;
      if (Number((await this.#client.block(from)).timestamp) * 1000 < stopBefore) break;
      to = from - 1n;
    }
    const outcome = missing === 0n ? 'recovered' : 'unexplained';
    await this.#db.insertInto('processor.balance_findings').values({
      network: this.#network, address, token, block_number: at.number, balance: balance.toString(), expected: expected.toString(),
      recovered, outcome, found_at: this.#clock.now(),
    }).execute();
    return { ...finding, recovered, outcome };
  }
}
