import type { Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import { publicText } from '../../core/public-text.ts';
import { RangeRefused, RpcUnavailable, type BlockHeader, type ChainClient, type TransferLog } from '../chain/chain-client.ts';
import { Reconciler, type ReconcileOptions, type ReconcileResult } from './reconciliation.ts';
import { distinctLogs, recordTransfers } from './recorded-transfers.ts';
import { recordFailure, recordObserved, recordScanned } from './scan-state.ts';
import type { WatchedAddresses } from './watched-addresses.ts';

// Detection (issue 22, must have 3): per network, a cursor scans the Transfer logs of the
// configured tokens in block ranges up to the final block, matches recipients against the watched
// addresses in memory, and records each matching transfer once (network, transaction, log index).
// Only final blocks are scanned, so a recorded transfer is final. The last scanned block's hash
// is kept: when the next block's parent is another, a reorganisation deeper than the finality
// rule happened, and the cursor goes back to where the chains agree, marking what it removed.
// Transfers out of watched addresses are recorded too (processor.outgoing_transfers), so the
// balance reconciliation (reconciliation.ts), run after some scans, compares in − out. Each scan
// writes what it saw and how it went to processor.network_scans (scan-state.ts) for the status.

/** The widest range asked for, and where a scan starts. */
export const MAX_RANGE = 2_000n;
/** Successful ranges in a row before the range doubles again after a refusal. */
const GROW_AFTER = 3;
/** Recent scanned block hashes kept per network, to find where a reorganisation forked. */
const KEEP_BLOCKS = 256;
/** Reads of one range that disagree with its headers before the scan gives up until the next one. */
const UNSTEADY_READS = 3;
/** Reorganisations one scan rolls back before it leaves the rest to the next (nodes that disagree). */
const MAX_REORGANISATIONS = 5;

export interface ScanResult {
  /** The cursor after the scan: every block before it is scanned. */
  nextBlock: bigint;
  /** Transfers recorded (or restored after a reorganisation moved them) by this scan. */
  recorded: number;
  /** Reorganisations found, each rolled back. */
  reorganisations: number;
  /** The balance reconciliation, when this scan ran a pass (and it did not fail). */
  reconciliation?: ReconcileResult;
}

export class CursorMoved extends Error {}

/** The node, or the cursor kept, is of another chain than the network's configured chain id. */
export class ChainIdMismatch extends Error {}

export interface DetectorOptions {
  /** Where a network's first scan begins; default: the final block at that time (nothing older is scanned). */
  startBlock?: bigint;
  log?: (line: string) => void;
  /** The balance reconciliation's cadence and size; false: none (benchmarks of the scan alone). */
  reconcile?: ReconcileOptions | false;
}

export class Detector {
  readonly network: NetworkConfig;
  readonly #db: Db;
  readonly #client: ChainClient;
  readonly #watched: WatchedAddresses;
  readonly #clock: Clock;
  readonly #options: DetectorOptions;
  readonly #tokens: Array<`0x${string}`>;
  #range = MAX_RANGE;
  #successes = 0;
  /** The node's chain id was checked (at start, or by the first scan when no node answered then). */
  #chainChecked = false;
  readonly #reconciler: Reconciler | undefined;

  constructor(deps: { db: Db; network: NetworkConfig; client: ChainClient; watched: WatchedAddresses; clock: Clock }, options: DetectorOptions = {}) {
    this.network = deps.network;
    this.#db = deps.db;
    this.#client = deps.client;
    this.#watched = deps.watched;
    this.#clock = deps.clock;
    this.#options = options;
    this.#tokens = deps.network.tokens.map((token) => token.address);
    this.#reconciler = options.reconcile === false ? undefined : new Reconciler({
      db: deps.db, network: deps.network.name, client: deps.client, clock: deps.clock, tokens: this.#tokens, range: () => this.#range,
    }, options.reconcile);
  }

  /** The block range the next log query asks for. */
  get range(): bigint {
    return this.#range;
  }

  /**
   * Refuses to watch a node of another chain (its logs would be taken for this network's), or to
   * continue another chain's scan. `rounds` bounds the tries (a start's quick check, a probe).
   */
  async checkChainId({ rounds }: { rounds?: number } = {}): Promise<void> {
    const answered = await this.#client.chainId({ rounds });
    if (answered !== this.network.chainId) {
      throw new ChainIdMismatch(`${this.network.name}: the RPC node answers chain id ${answered}, but ${this.network.name.toUpperCase()}_CHAIN_ID is ${this.network.chainId}. Check ${this.network.name.toUpperCase()}_RPC_URL.`);
    }
    const kept = await this.#db.selectFrom('processor.cursors').select('chain_id').where('network', '=', this.network.name).executeTakeFirst();
    if (kept && kept.chain_id !== this.network.chainId) throw this.#otherChain(kept.chain_id);
    this.#chainChecked = true;
  }

  /**
   * One try of every URL (the chain id, checked again): whether a node that failed answers now,
   * before a whole scan's retries are spent on it. A failure is written down as a scan's.
   */
  async probe(): Promise<void> {
    try {
      await this.checkChainId({ rounds: 1 });
    } catch (error) {
      await recordFailure(this.#db, this.network.name, error, this.#clock.now()).catch(() => undefined);
      throw error;
    }
  }

  #otherChain(kept: number): ChainIdMismatch {
    return new ChainIdMismatch(`${this.network.name}: the scan so far was of chain id ${kept}, not ${this.network.chainId}; its cursor cannot continue on another chain.`);
  }

  async #cursor(final: BlockHeader): Promise<bigint> {
    const name = this.network.name;
    const row = await this.#db.selectFrom('processor.cursors').select(['next_block', 'chain_id']).where('network', '=', name).executeTakeFirst();
    // A cursor of another chain (the network's RPC URL and chain id changed) would skip or repeat its blocks.
    if (row && row.chain_id !== this.network.chainId) throw this.#otherChain(row.chain_id);
    if (row) return BigInt(row.next_block);
    const start = this.#options.startBlock ?? final.number + 1n;
    await this.#db.insertInto('processor.cursors')
      .values({ network: name, chain_id: this.network.chainId, next_block: start, updated_at: this.#clock.now() })
      .onConflict((oc) => oc.column('network').doNothing()).execute();
    const stored = await this.#db.selectFrom('processor.cursors').select('next_block').where('network', '=', name).executeTakeFirstOrThrow();
    return BigInt(stored.next_block);
  }

  /**
   * Scans from the cursor up to the current final block, range by range; then, after the first
   * scan, a catch-up (more than one full range) or every `everyScans` scans, a reconciliation pass.
   * A failure is written down (the status's last error) and thrown; the next scan starts over.
   */
  async scan(): Promise<ScanResult> {
    const network = this.network.name;
    let scanned: { result: ScanResult; final: BlockHeader; from: bigint };
    try {
      if (!this.#chainChecked) await this.checkChainId();
      scanned = await this.#scanToFinal();
      await recordScanned(this.#db, network, this.#clock.now());
    } catch (error) {
      await recordFailure(this.#db, network, error, this.#clock.now()).catch(() => undefined);
      throw error;
    }
    const { result, final, from } = scanned;
    if (this.#reconciler) {
      try {
        result.reconciliation = await this.#reconciler.afterScan(final, { catchUp: final.number - from + 1n > MAX_RANGE });
      } catch (error) {
        // The scan itself holds; the next due pass tries again.
        this.#options.log?.(`[processor] ${network}: balance reconciliation failed: ${publicText(error)}`);
        await recordFailure(this.#db, network, error, this.#clock.now(), 'reconciliation').catch(() => undefined);
      }
    }
    return result;
  }

  /** A reconciliation pass now, at the last scanned block, whatever the cadence (tests, the benchmark). */
  async reconcile(): Promise<ReconcileResult | undefined> {
    const row = await this.#db.selectFrom('processor.cursors').select('next_block').where('network', '=', this.network.name).executeTakeFirst();
    if (!this.#reconciler || !row || row.next_block === 0) return undefined;
    return this.#reconciler.pass(await this.#client.block(BigInt(row.next_block) - 1n));
  }

  async #scanToFinal(): Promise<{ result: ScanResult; final: BlockHeader; from: bigint }> {
    const result: ScanResult = { nextBlock: 0n, recorded: 0, reorganisations: 0 };
    const { head, final } = await this.#client.heads();
    let cursor = await this.#cursor(final);
    const from = cursor;
    await recordObserved(this.#db, this.network.name, head, final.number, this.#clock.now());
    let unsteady = 0;
    while (cursor <= final.number) {
      const to = cursor + this.#range - 1n < final.number ? cursor + this.#range - 1n : final.number;
      const first = to === final.number && cursor === to ? final : await this.#client.block(cursor);
      const tip = await this.#db.selectFrom('processor.blocks').select(['hash']).where('network', '=', this.network.name)
        .where('number', '=', Number(cursor - 1n)).executeTakeFirst();
      if (tip && tip.hash !== first.parentHash) {
        if (result.reorganisations >= MAX_REORGANISATIONS) throw new RpcUnavailable(`${this.network.name}: the chain keeps reorganising below block ${cursor}`);
        cursor = await this.#rollBack(cursor);
        result.reorganisations += 1;
        continue;
      }
      this.#watched.forgetEndedBefore(new Date(Number(first.timestamp) * 1000));
      let logs: TransferLog[];
      try {
        logs = await this.#client.transferLogs(this.#tokens, cursor, to);
      } catch (error) {
        // A refusal names the range; an unexplained failure may be one too, in words we do not know.
        if (!(error instanceof RangeRefused || error instanceof RpcUnavailable) || this.#range === 1n) throw error;
        this.#range = this.#range / 2n;
        this.#successes = 0;
        continue;
      }
      const last = to === final.number ? final : to === cursor ? first : await this.#client.block(to);
      // A log of the range's first or last block from another branch than its header: the chain
      // moved under the scan. Read the range again.
      if (logs.some((log) => (log.blockNumber === to && log.blockHash !== last.hash) || (log.blockNumber === cursor && log.blockHash !== first.hash))) {
        unsteady += 1;
        if (unsteady >= UNSTEADY_READS) throw new RpcUnavailable(`${this.network.name}: the logs of blocks ${cursor}..${to} keep disagreeing with their headers`);
        continue;
      }
      unsteady = 0;
      const paid = logs.filter((log) => log.value > 0n);
      const inbound = distinctLogs(paid.filter((log) => this.#watched.has(log.to)));
      const outgoing = distinctLogs(paid.filter((log) => this.#watched.has(log.from)));
      result.recorded += await this.#record(cursor, last, { inbound, outgoing });
      cursor = to + 1n;
      this.#successes += 1;
      if (this.#successes >= GROW_AFTER && this.#range < MAX_RANGE) {
        this.#range = this.#range * 2n > MAX_RANGE ? MAX_RANGE : this.#range * 2n;
        this.#successes = 0;
      }
    }
    result.nextBlock = cursor;
    return { result, final, from };
  }

  /** Records the range's matching transfers and its last block, and moves the cursor past it, at once. */
  async #record(cursor: bigint, last: BlockHeader, transfers: { inbound: TransferLog[]; outgoing: TransferLog[] }): Promise<number> {
    const network = this.network.name;
    const now = this.#clock.now();
    return this.#db.transaction().execute(async (trx) => {
      const recorded = (await recordTransfers(trx, network, now, transfers)).inbound.length;
      await trx.insertInto('processor.blocks').values({ network, number: last.number, hash: last.hash, parent_hash: last.parentHash })
        .onConflict((oc) => oc.columns(['network', 'number']).doUpdateSet({ hash: last.hash, parent_hash: last.parentHash })).execute();
      await trx.deleteFrom('processor.blocks').where('network', '=', network).where('number', '<', (eb) => eb.selectFrom('processor.blocks')
        .select('number').where('network', '=', network).orderBy('number', 'desc').offset(KEEP_BLOCKS - 1).limit(1)).execute();
      // Moves only the cursor this scan read: a second processor that moved it first wins, and this range is not recorded twice.
      const moved = await trx.updateTable('processor.cursors').set({ next_block: last.number + 1n, updated_at: now })
        .where('network', '=', network).where('next_block', '=', Number(cursor)).executeTakeFirst();
      if (moved.numUpdatedRows !== 1n) throw new CursorMoved(`${network}: another scan moved the cursor from ${cursor}`);
      return recorded;
    });
  }

  /**
   * The block before `cursor` is no longer the one scanned: walks back through the kept hashes
   * to the newest block both chains share, marks the transfers of blocks no longer on the chain
   * `removed`, forgets the hashes above it and moves the cursor back. Answers the new cursor.
   */
  async #rollBack(cursor: bigint): Promise<bigint> {
    const network = this.network.name;
    const kept = await this.#db.selectFrom('processor.blocks').select(['number', 'hash']).where('network', '=', network)
      .where('number', '<', Number(cursor)).orderBy('number', 'desc').execute();
    let common: bigint | undefined;
    for (const block of kept) {
      if ((await this.#client.block(BigInt(block.number))).hash === block.hash) {
        common = BigInt(block.number);
        break;
      }
    }
    // Deeper than every kept hash: go back before the oldest one (a rescan records nothing twice).
    const back = common ?? BigInt(kept.at(-1)?.number ?? Number(cursor)) - 1n;
    const suspects = await this.#db.selectFrom('processor.transfers').select(['block_number', 'block_hash']).distinct()
      .where('network', '=', network).where('block_number', '>', Number(back)).where('status', '!=', 'removed').execute();
    const gone: string[] = [];
    for (const suspect of suspects) {
      const onChain = await this.#client.block(BigInt(suspect.block_number)).catch(() => undefined);
      if (onChain?.hash !== suspect.block_hash) gone.push(suspect.block_hash);
    }
    const now = this.#clock.now();
    this.#options.log?.(`[processor] ${network}: reorganisation below block ${cursor}; scanning again from ${back + 1n}, ${gone.length} block(s) of transfers removed`);
    await this.#db.transaction().execute(async (trx) => {
      if (gone.length > 0) {
        await trx.updateTable('processor.transfers').set({ status: 'removed', updated_at: now })
          .where('network', '=', network).where('block_hash', 'in', gone).execute();
      }
      // Transfers out of blocks no longer on the chain: every one above the common block (few, and a rescan records them again).
      await trx.updateTable('processor.outgoing_transfers').set({ status: 'removed', updated_at: now })
        .where('network', '=', network).where('block_number', '>', Number(back)).where('status', '=', 'final').execute();
      await trx.deleteFrom('processor.blocks').where('network', '=', network).where('number', '>', Number(back)).execute();
      const moved = await trx.updateTable('processor.cursors').set({ next_block: back + 1n, updated_at: now })
        .where('network', '=', network).where('next_block', '=', Number(cursor)).executeTakeFirst();
      if (moved.numUpdatedRows !== 1n) throw new CursorMoved(`${network}: another scan moved the cursor from ${cursor}`);
    });
    return back + 1n;
  }
}


/** Transfers recorded on a network, for the status and for tests. */
export function transfersOf(db: Db, network: string) {
  return db.selectFrom('processor.transfers').selectAll().where('network', '=', network)
    .orderBy('block_number').orderBy('log_index').execute();
}
