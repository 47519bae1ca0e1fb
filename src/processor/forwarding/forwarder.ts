import type { Hex, TransactionReceipt } from 'viem';
import type { Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import type { ForwardShare, StoredMovement } from '../../db/schema.ts';
import { attemptFor, CannotForward, explainRevert, isFinalReceipt, requireGas, sharesOf } from './forward-attempts.ts';
import { revertReason, type ForwardChain } from '../chain/forward-chain.ts';
import { checkGasWallet } from './gas-wallet.ts';
import { feeCap, feesOf, signAndStore, storeReplacement, transactionsOf, type Fees, type ForwardTransactionRow } from './forward-transactions.ts';
import type { ProcessorKeys } from '../chain/keys.ts';
import { planForwards, type ForwarderDeps, type ForwardRow } from './forward-plans.ts';
import { enqueueNotice, sixDecimals } from '../notices/outbox.ts';
import { IneffectiveTransaction, verifyTopUp, verifyTransfers } from './movements.ts';
import { settlementMovements } from '../notices/settlement.ts';
import { publicText } from '../../core/public-text.ts';
import { reportFinalSweeps } from './sweep.ts';

export type { ForwarderDeps, ForwardRow };

// One network's forwards (issue 22, must have 4). Each pass plans a forward for every new final
// deposit, then moves every open forward one step on from what its rows say: planned → signed
// (the transactions stored) → broadcast → mined → final, so a process that dies anywhere resumes
// from its rows. Money can move only once: EIP-3009 authorizations carry nonces derived from the
// forward, and every other transaction has a nonce of its own, taken once, in the database.

export type ForwardStep = 'planned' | 'signed' | 'broadcast' | 'mined' | 'final';

export interface ForwarderOptions {
  /** A gas wallet transaction not mined this long after its broadcast is replaced at a higher fee (default 3 minutes). */
  replaceAfterMs?: number;
  /** The wait before a failed forward is tried again, doubling to an hour (default 1 minute). */
  retryAfterMs?: number;
  /** Tests: called after each step is written down; throwing there is the process dying at that step. */
  onStep?: (step: ForwardStep, forward: ForwardRow) => void | Promise<void>;
  log?: (line: string) => void;
}

export const DEFAULT_REPLACE_AFTER_MS = 3 * 60_000;
/** A low gas wallet is said in the log at most this often. */
const LOW_GAS_EVERY_MS = 10 * 60_000;
const MAX_RETRY_MS = 60 * 60_000;
/** The longest forward failure kept. */
const FAILURE_MAX = 1_000;
/** Each replacement bids this much more (nodes want at least 10 % to replace). */
const BUMP_PERCENT = 125n;

/** A transaction still on its way: signed, broadcast or mined, not yet final, reverted or replaced. */
const isLive = (tx: ForwardTransactionRow): boolean => tx.state === 'signed' || tx.state === 'broadcast' || tx.state === 'mined';

export class Forwarder {
  readonly network: NetworkConfig;
  readonly #deps: ForwarderDeps;
  readonly #options: Required<Omit<ForwarderOptions, 'onStep'>> & Pick<ForwarderOptions, 'onStep'>;

  constructor(deps: ForwarderDeps, options: ForwarderOptions = {}) {
    this.network = deps.network;
    this.#deps = deps;
    this.#options = {
      replaceAfterMs: options.replaceAfterMs ?? DEFAULT_REPLACE_AFTER_MS,
      retryAfterMs: options.retryAfterMs ?? 60_000,
      log: options.log ?? ((line: string) => console.error(line)),
      onStep: options.onStep,
    };
  }

  get #name(): string {
    return this.network.name;
  }

  #lowGasSaidAt = -Infinity;

  /** Plans what is new, then moves every open forward on. Answers the forwards still open. */
  async pass(): Promise<number> {
    const { db, clock } = this.#deps;
    await this.#checkGas().catch(() => undefined);
    await planForwards({ ...this.#deps, log: this.#options.log }, (row) => this.#step('planned', row));
    const open = await db.selectFrom('processor.forwards').selectAll().where('network', '=', this.#name)
      .where((eb) => eb.or([eb('state', 'in', ['planned', 'sending']), eb.and([eb('state', '=', 'failed'), eb('retry_at', '<=', clock.now())])]))
      .orderBy('id').execute();
    let left = 0;
    for (const forward of open) {
      try {
        await this.advance(forward);
      } catch (error) {
        if (error instanceof CannotForward) await this.#fail(forward, error.message);
        // Anything else (a node down) leaves the rows as they are: the next pass goes on from them.
        else if (!(error instanceof StepInterrupted)) this.#options.log(`[processor] ${this.#name}: forward ${forward.id} waits: ${revertReason(error)}`);
        else throw error;
      }
      const state = (await db.selectFrom('processor.forwards').select('state').where('id', '=', forward.id).executeTakeFirstOrThrow()).state;
      if (state !== 'final' && state !== 'canceled') left += 1;
    }
    // The operator's sweeps, booked once final (the same finality as a forward's).
    await reportFinalSweeps({ ...this.#deps, log: this.#options.log }).catch((error: unknown) => {
      this.#options.log(`[processor] ${this.#name}: sweeps not reported yet: ${revertReason(error)}`);
    });
    return left;
  }

  /** The gas wallet's balance written down each pass (for the status); a low one said in the log now and then. */
  async #checkGas(): Promise<void> {
    const { db, clock, chain, keys } = this.#deps;
    const gas = await checkGasWallet(db, clock, chain, keys.gasWallet.address);
    const now = clock.now().getTime();
    if (!gas.low || now - this.#lowGasSaidAt < LOW_GAS_EVERY_MS) return;
    this.#lowGasSaidAt = now;
    this.#options.log(`[processor] ${this.#name}: the gas wallet ${gas.address} is low: ${gas.balance} wei, below ${gas.threshold} (enough for 20 forwards at the current gas price); fund it`);
  }

  async #step(step: ForwardStep, forward: ForwardRow): Promise<void> {
    try {
      await this.#options.onStep?.(step, forward);
    } catch (error) {
      throw new StepInterrupted(error instanceof Error ? error.message : String(error));
    }
  }

  /** Moves one forward on from what its rows say. */
  async advance(forward: ForwardRow): Promise<void> {
    const txs = await transactionsOf(this.#deps.db, forward.id);
    const live = txs.filter(isLive);
    if (live.length === 0) {
      if (await this.#completeIfDone(forward, txs)) return;
      await this.#attempt(forward, txs);
      return;
    }
    for (const tx of live) {
      // A share sent from the deposit address waits for the gas it spends to be mined (and verified).
      // Its own attempt's top-up: signed in the same database transaction, so at the same moment.
      const topUp = txs.find((other) => other.purpose === 'top_up' && other.id < tx.id && other.signed_at.getTime() === tx.signed_at.getTime());
      if (tx.purpose === 'share' && topUp && topUp.state !== 'mined' && topUp.state !== 'final') break;
      await this.#progress(forward, tx);
    }
    // A forward that failed (its gas wallet empty at broadcast) goes on once its transactions do.
    if (forward.state === 'failed') {
      await this.#deps.db.updateTable('processor.forwards').set({ state: 'sending', failure: null, retry_at: null, updated_at: this.#deps.clock.now() })
        .where('id', '=', forward.id).where('state', '=', 'failed').execute();
    }
    const after = await transactionsOf(this.#deps.db, forward.id);
    const newly = (state: 'reverted' | 'ineffective') => after.filter((tx) => tx.state === state && !txs.some((before) => before.id === tx.id && before.state === state));
    const reverted = newly('reverted');
    if (reverted.length > 0) throw new CannotForward(await explainRevert(this.#deps, forward, reverted[0]!));
    const ineffective = newly('ineffective');
    if (ineffective.length > 0) throw new CannotForward(this.#ineffectiveReason(forward, ineffective[0]!));
    if (!after.some(isLive)) await this.#completeIfDone(forward, after);
  }

  /**
   * Marks the forward final (and enqueues its settlement notice) once every share is in a final
   * transaction whose receipt showed it (verified when mined), keeping every verified movement.
   */
  async #completeIfDone(forward: ForwardRow, txs: ForwardTransactionRow[], elsewhere: Partial<Record<ForwardShare, StoredMovement>> = {}): Promise<boolean> {
    const movements: StoredMovement[] = [];
    for (const tx of txs) if (tx.state === 'final') movements.push(...(tx.movements ?? await this.#verifiedLate(forward, tx)));
    for (const movement of Object.values(elsewhere)) if (!movements.some((other) => other.kind === movement.kind)) movements.push(movement);
    const moved = (share: ForwardShare) => movements.find((movement) => movement.kind === share)?.tx_hash;
    const shares = sharesOf(forward);
    if (!shares.every(({ share }) => moved(share) !== undefined)) return false;
    const txidOut = moved('net') ?? moved('fee')!;
    const token = this.network.tokens.find((candidate) => candidate.address === forward.token);
    const order = ['gas', 'net', 'fee'];
    movements.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    const now = this.#deps.clock.now();
    const done = await this.#deps.db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('processor.forwards')
        .set({ state: 'final', txid_out: txidOut, failure: null, retry_at: null, updated_at: now, movements: JSON.stringify(movements) })
        .where('id', '=', forward.id).where('state', '!=', 'final').returningAll().executeTakeFirst();
      if (!updated) return undefined;
      // In the transaction that makes the forward final: one notice, under an id derived from the deposit.
      await enqueueNotice(trx, {
        id: `settlement:${forward.network}:${forward.transfer_tx_hash}:${forward.transfer_log_index}`,
        type: 'settlement.completed', deposit_address: forward.deposit_address, payment_id: forward.payment_id, network: forward.network,
        txid_out: txidOut, merchant_received: sixDecimals(BigInt(forward.net)),
        // The books (issue 30): which deposit this forwards, and each movement its receipts showed.
        coin: token?.coin, transfer_txid: forward.transfer_tx_hash, transfer_log_index: forward.transfer_log_index,
        movements: settlementMovements(movements, token?.decimals ?? 6),
      }, now);
      return updated;
    });
    if (done) {
      this.#options.log(`[processor] ${this.#name}: forward ${forward.id} final: ${forward.net} to ${forward.payout_wallet}, ${forward.fee} fee, in ${txidOut}`);
      await this.#step('final', done);
    }
    return true;
  }

  async #fail(forward: ForwardRow, failure: string): Promise<void> {
    // Shown to operators and kept: a node's words may carry its URL (and the API key in its path).
    // Longer than a status problem: a failure names the transaction, the addresses and what was missing.
    const reason = publicText(failure, FAILURE_MAX);
    const attempts = forward.attempts + 1;
    const wait = Math.min(this.#options.retryAfterMs * 2 ** (attempts - 1), MAX_RETRY_MS);
    const now = this.#deps.clock.now();
    await this.#deps.db.updateTable('processor.forwards')
      .set({ state: 'failed', failure: reason, attempts, retry_at: new Date(now.getTime() + wait), updated_at: now })
      .where('id', '=', forward.id).where('state', '!=', 'final').execute();
    this.#options.log(`[processor] ${this.#name}: forward ${forward.id} of ${forward.deposit_address} failed, retried in ${Math.round(wait / 1000)} s: ${reason}`);
  }

  /** Signs and stores the transactions that move what is left, then broadcasts them. */
  async #attempt(forward: ForwardRow, txs: ForwardTransactionRow[]): Promise<void> {
    const { db, clock } = this.#deps;
    // Never sign for a deposit a reorganisation took away (it is planned again if it comes back).
    const transfer = await db.selectFrom('processor.transfers').select('status').where('network', '=', forward.network)
      .where('tx_hash', '=', forward.transfer_tx_hash).where('log_index', '=', forward.transfer_log_index).executeTakeFirst();
    if (transfer?.status !== 'final') {
      await db.updateTable('processor.forwards').set({ state: 'canceled', failure: 'the deposit was removed by a reorganisation', updated_at: clock.now() })
        .where('id', '=', forward.id).where('state', 'in', ['planned', 'failed']).execute();
      this.#options.log(`[processor] ${this.#name}: forward ${forward.id} canceled: its deposit ${forward.transfer_tx_hash} is no longer on the chain`);
      return;
    }
    const done = new Set(txs.filter((tx) => tx.state === 'final').flatMap((tx) => tx.shares));
    const left = sharesOf(forward).filter(({ share }) => !done.has(share));
    const attempt = await attemptFor(this.#deps, forward, left).catch(async (error: unknown) => {
      // Another processor passing at once signed this forward meanwhile, and its transaction moving
      // the money is what made this estimate fail: that transaction goes on, this forward has not failed.
      if (error instanceof CannotForward && (await transactionsOf(db, forward.id)).some(isLive)) return null;
      throw error;
    });
    if (attempt === null) return;
    if (attempt.transactions.length === 0) {
      await this.#completeIfDone(forward, txs, attempt.movedElsewhere);
      return;
    }
    const stored = await signAndStore(this.#deps, forward.id, attempt.transactions);
    if (stored.length === 0) return;
    const sending = await db.updateTable('processor.forwards').set({ state: 'sending', failure: null, retry_at: null, updated_at: clock.now() })
      .where('id', '=', forward.id).returningAll().executeTakeFirstOrThrow();
    await this.#step('signed', sending);
    for (const tx of stored) {
      if (tx.purpose === 'share' && stored.some((other) => other.purpose === 'top_up')) break;
      await this.#progress(sending, tx);
    }
  }

  /** One transaction one step on: broadcast, mined, final, reverted, replaced. */
  async #progress(forward: ForwardRow, tx: ForwardTransactionRow): Promise<void> {
    const { db, clock, chain } = this.#deps;
    const set = (values: Partial<Pick<ForwardTransactionRow, 'state' | 'block_number' | 'block_hash' | 'broadcast_at'>>) =>
      db.updateTable('processor.forward_transactions').set({ ...values, updated_at: clock.now() }).where('id', '=', tx.id).where('tx_hash', '=', tx.tx_hash).execute();

    // Mined? Any hash it ever had may be the one in a block.
    for (const hash of [tx.tx_hash, ...tx.replaced_hashes]) {
      const receipt = await chain.receipt(hash as Hex);
      if (!receipt) continue;
      if (receipt.status !== 'success') {
        await db.updateTable('processor.forward_transactions').set({ state: 'reverted', block_number: receipt.blockNumber, block_hash: receipt.blockHash.toLowerCase(), updated_at: clock.now() })
          .where('id', '=', tx.id).execute();
        return;
      }
      // The hash mined is the transaction's; the others were its replacements or what it replaced.
      const mined = { tx_hash: hash, block_number: receipt.blockNumber, block_hash: receipt.blockHash.toLowerCase(), replaced_hashes: [tx.tx_hash, ...tx.replaced_hashes].filter((other) => other !== hash) };
      const verified = await this.#verify(forward, tx, receipt);
      if (typeof verified === 'string') {
        // Mined, and a success by its status, yet it did not move what it was for: it never counts.
        await db.updateTable('processor.forward_transactions').set({ ...mined, state: 'ineffective', failure: verified, updated_at: clock.now() }).where('id', '=', tx.id).execute();
        return;
      }
      const final = await isFinalReceipt(chain, receipt);
      await db.updateTable('processor.forward_transactions').set({
        ...mined, state: final ? 'final' : 'mined', movements: JSON.stringify(verified), updated_at: clock.now(),
      }).where('id', '=', tx.id).execute();
      if (tx.state !== 'mined' && !final) await this.#step('mined', forward);
      return;
    }
    if (tx.state === 'mined') {
      // Its block was taken away by a reorganisation: the same transaction goes out again.
      this.#options.log(`[processor] ${this.#name}: ${tx.tx_hash} left the chain in a reorganisation; broadcasting it again`);
    }
    const due = tx.broadcast_at !== null && clock.now().getTime() - tx.broadcast_at.getTime() >= this.#options.replaceAfterMs;
    if (due && tx.state === 'broadcast' && tx.max_priority_fee_per_gas !== null) {
      tx = await this.#replace(tx);
    }
    const sent = await chain.broadcast(tx.raw as Hex);
    if (!sent.ok && sent.refusal === 'no_funds') {
      throw new CannotForward(`the ${tx.purpose === 'share' ? 'deposit address' : 'gas wallet'} ${tx.sender} cannot pay for ${tx.tx_hash}: ${sent.message}`);
    }
    if (!sent.ok && sent.refusal === 'nonce_used') {
      // Its nonce is spent, yet by none of its hashes (checked above): by a transaction not ours.
      await set({ state: 'dropped' });
      this.#options.log(`[processor] ${this.#name}: nonce ${tx.nonce} of ${tx.sender} was spent by a transaction not the processor's; ${tx.tx_hash} dropped`);
      return;
    }
    if (!sent.ok && sent.refusal === 'underpriced') {
      this.#options.log(`[processor] ${this.#name}: ${tx.tx_hash} refused as underpriced (${sent.message}); replaced after ${this.#options.replaceAfterMs / 1000} s`);
    }
    if (tx.state === 'signed' || tx.state === 'mined') {
      await set({ state: 'broadcast', broadcast_at: tx.broadcast_at ?? clock.now() });
      if (tx.state === 'signed') await this.#step('broadcast', forward);
    }
  }

  /** What the receipt shows of what the transaction was sent for, or why it does not count, in words. */
  async #verify(forward: ForwardRow, tx: ForwardTransactionRow, receipt: TransactionReceipt): Promise<StoredMovement[] | string> {
    try {
      if (tx.purpose === 'top_up') {
        const sent = await this.#deps.chain.transaction(receipt.transactionHash);
        return [verifyTopUp(receipt, sent, { to: forward.deposit_address, value: BigInt(tx.value) })];
      }
      const expected = sharesOf(forward).filter(({ share }) => tx.shares.includes(share))
        .map(({ share, to, value }) => ({ kind: share, token: forward.token, from: forward.deposit_address, to, value }));
      return verifyTransfers(receipt, expected);
    } catch (error) {
      if (error instanceof IneffectiveTransaction) return error.message;
      throw error;
    }
  }

  /** A transaction made final before receipts were verified (migration 0043): its receipt verified now; nothing if it does not show it. */
  async #verifiedLate(forward: ForwardRow, tx: ForwardTransactionRow): Promise<StoredMovement[]> {
    const receipt = await this.#deps.chain.receipt(tx.tx_hash as Hex);
    const verified = receipt ? await this.#verify(forward, tx, receipt) : 'no receipt';
    return typeof verified === 'string' ? [] : verified;
  }

  #ineffectiveReason(forward: ForwardRow, tx: ForwardTransactionRow): string {
    const batch = tx.purpose === 'batch'
      ? `; the batch contract it called, ${tx.to_address}, did nothing (no code there? check ${this.#name.toUpperCase()}_MULTICALL)` : '';
    return `${tx.failure ?? `${tx.tx_hash} moved nothing`}${batch}. Nothing is claimed settled; the money stays at ${forward.deposit_address} for the retry`;
  }

  /** The same calls under the same nonce, at a fee 25 % higher (or what the node asks now, if more). */
  async #replace(tx: ForwardTransactionRow): Promise<ForwardTransactionRow> {
    const old = feesOf(tx);
    if (old.type !== 'eip1559') return tx;
    const now = await this.#deps.chain.fees();
    const fees: Fees = {
      type: 'eip1559',
      maxFeePerGas: max(old.maxFeePerGas * BUMP_PERCENT / 100n + 1n, now.maxFeePerGas),
      maxPriorityFeePerGas: max(old.maxPriorityFeePerGas * BUMP_PERCENT / 100n + 1n, now.maxPriorityFeePerGas),
    };
    await requireGas(this.#deps, BigInt(tx.gas) * feeCap(fees) + BigInt(tx.value));
    const replaced = await storeReplacement(this.#deps, tx, this.#deps.keys.gasWallet, fees);
    this.#options.log(`[processor] ${this.#name}: ${tx.tx_hash} not mined in ${this.#options.replaceAfterMs / 1000} s; replaced by ${replaced.tx_hash} at ${fees.maxFeePerGas} wei per gas`);
    return replaced;
  }
}

/** Thrown through a pass when a test's onStep hook stops it: the process "died" there. */
export class StepInterrupted extends Error {}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
