import { encodeFunctionData, formatUnits, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { Clock } from '../core/clock.ts';
import { MULTICALL3, type NetworkConfig } from '../core/networks-config.ts';
import type { Db } from '../db/database.ts';
import type { ForwardShare } from '../db/schema.ts';
import { authorizationNonce, signedTransfer, tokenDomain, UnknownDomain } from './authorizations.ts';
import { multicallAbi, revertReason, tokenAbi, type ForwardChain } from './forward-chain.ts';
import { feeCap, feesOf, signAndStore, storeReplacement, transactionsOf, type Fees, type ForwardTransactionRow, type TransactionToSign } from './forward-transactions.ts';
import type { ProcessorKeys } from './keys.ts';
import { planForwards, type ForwardRow } from './forward-plans.ts';
import { enqueueNotice, sixDecimals } from './outbox.ts';

export type { ForwardRow };

// One network's forwards (issue 22, must have 4). Each pass plans a forward for every new final
// deposit, then moves every open forward one step on from what its rows say: planned → signed
// (the transactions stored) → broadcast → mined → final, so a process that dies anywhere resumes
// from its rows. Money can move only once: EIP-3009 authorizations carry nonces derived from the
// forward, and every other transaction has a nonce of its own, taken once, in the database.

export type ForwardStep = 'planned' | 'signed' | 'broadcast' | 'mined' | 'final';

export interface ForwarderDeps {
  db: Db;
  clock: Clock;
  network: NetworkConfig;
  chain: ForwardChain;
  keys: ProcessorKeys;
  feeWallet: `0x${string}`;
}

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
const MAX_RETRY_MS = 60 * 60_000;
/** Each replacement bids this much more (nodes want at least 10 % to replace). */
const BUMP_PERCENT = 125n;
/** Estimates are raised by this much for a batch, whose gas the token's state can change a little. */
const GAS_MARGIN_PERCENT = 120n;

/** A step that could not happen for a reason the operator must see; the forward fails and is retried later. */
class CannotForward extends Error {}

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

  /** Plans what is new, then moves every open forward on. Answers the forwards still open. */
  async pass(): Promise<number> {
    const { db, clock } = this.#deps;
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
    return left;
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
    const live = txs.filter((tx) => tx.state === 'signed' || tx.state === 'broadcast' || tx.state === 'mined');
    if (live.length === 0) {
      if (await this.#completeIfDone(forward, txs)) return;
      await this.#attempt(forward, txs);
      return;
    }
    for (const tx of live) {
      // A share sent from the deposit address waits for the gas it spends to be mined.
      const topUp = live.find((other) => other.purpose === 'top_up' && other.id < tx.id);
      if (tx.purpose === 'share' && topUp && topUp.state !== 'mined' && topUp.state !== 'final') break;
      await this.#progress(forward, tx);
    }
    // A forward that failed (its gas wallet empty at broadcast) goes on once its transactions do.
    if (forward.state === 'failed') {
      await this.#deps.db.updateTable('processor.forwards').set({ state: 'sending', failure: null, retry_at: null, updated_at: this.#deps.clock.now() })
        .where('id', '=', forward.id).where('state', '=', 'failed').execute();
    }
    const after = await transactionsOf(this.#deps.db, forward.id);
    const reverted = after.filter((tx) => tx.state === 'reverted' && !txs.some((before) => before.id === tx.id && before.state === 'reverted'));
    if (reverted.length > 0) throw new CannotForward(await this.#explainRevert(forward, reverted[0]!));
    if (after.every((tx) => tx.state !== 'signed' && tx.state !== 'broadcast' && tx.state !== 'mined')) await this.#completeIfDone(forward, after);
  }

  /** The shares this forward moves (a zero share is not sent). */
  #sharesOf(forward: ForwardRow): Array<{ share: ForwardShare; to: Address; value: bigint }> {
    const shares: Array<{ share: ForwardShare; to: Address; value: bigint }> = [];
    if (BigInt(forward.net) > 0n) shares.push({ share: 'net', to: forward.payout_wallet as Address, value: BigInt(forward.net) });
    if (BigInt(forward.fee) > 0n) shares.push({ share: 'fee', to: forward.fee_wallet as Address, value: BigInt(forward.fee) });
    return shares;
  }

  /** Marks the forward final (and enqueues its settlement notice) once every share is in a final transaction. */
  async #completeIfDone(forward: ForwardRow, txs: ForwardTransactionRow[], moved: Partial<Record<ForwardShare, string>> = {}): Promise<boolean> {
    for (const tx of txs) if (tx.state === 'final') for (const share of tx.shares) moved[share] ??= tx.tx_hash;
    const shares = this.#sharesOf(forward);
    if (!shares.every(({ share }) => moved[share] !== undefined)) return false;
    const txidOut = moved.net ?? moved.fee!;
    const now = this.#deps.clock.now();
    const done = await this.#deps.db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('processor.forwards').set({ state: 'final', txid_out: txidOut, failure: null, retry_at: null, updated_at: now })
        .where('id', '=', forward.id).where('state', '!=', 'final').returningAll().executeTakeFirst();
      if (!updated) return undefined;
      // In the transaction that makes the forward final: one notice, under an id derived from the deposit.
      await enqueueNotice(trx, {
        id: `settlement:${forward.network}:${forward.transfer_tx_hash}:${forward.transfer_log_index}`,
        type: 'settlement.completed', deposit_address: forward.deposit_address, payment_id: forward.payment_id, network: forward.network,
        txid_out: txidOut, merchant_received: sixDecimals(BigInt(forward.net)),
      }, now);
      return updated;
    });
    if (done) {
      this.#options.log(`[processor] ${this.#name}: forward ${forward.id} final: ${forward.net} to ${forward.payout_wallet}, ${forward.fee} fee, in ${txidOut}`);
      await this.#step('final', done);
    }
    return true;
  }

  async #fail(forward: ForwardRow, reason: string): Promise<void> {
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
    const left = this.#sharesOf(forward).filter(({ share }) => !done.has(share));
    const planned = forward.method === 'authorization' ? await this.#authorizationBatch(forward, left, txs) : await this.#topUpAndShares(forward, left);
    if (planned.length === 0) return;
    const stored = await signAndStore(this.#deps, forward.id, planned);
    const sending = await db.updateTable('processor.forwards').set({ state: 'sending', failure: null, retry_at: null, updated_at: clock.now() })
      .where('id', '=', forward.id).returningAll().executeTakeFirstOrThrow();
    await this.#step('signed', sending);
    for (const tx of stored) {
      if (tx.purpose === 'share' && stored.some((other) => other.purpose === 'top_up')) break;
      await this.#progress(sending, tx);
    }
  }

  /** EIP-3009: one gas wallet transaction through the batch contract carrying each share's authorization. */
  async #authorizationBatch(forward: ForwardRow, left: Array<{ share: ForwardShare; to: Address; value: bigint }>, txs: ForwardTransactionRow[]): Promise<TransactionToSign[]> {
    const { chain, keys } = this.#deps;
    const token = forward.token as Address;
    const deposit = keys.deposit(forward.deposit_index);
    const calls: Array<{ share: ForwardShare; data: Hex }> = [];
    const usedElsewhere: Partial<Record<ForwardShare, string>> = {};
    let domain;
    try {
      domain = await tokenDomain(chain, token);
    } catch (error) {
      if (error instanceof UnknownDomain) throw new CannotForward(error.message);
      throw error;
    }
    for (const share of left) {
      const nonce = authorizationNonce(forward, share.share);
      // Used already: by a transaction of ours the rows lost track of, or by anyone who submitted
      // the signed authorization (it can only pay this share's wallet). Not signed again.
      if (await chain.authorizationUsed(token, deposit.address, nonce)) {
        const hash = await chain.authorizationUse(token, deposit.address, nonce, BigInt(await this.#transferBlock(forward)));
        if (hash && await this.#isFinal(hash)) usedElsewhere[share.share] = hash.toLowerCase();
        continue;
      }
      const data = await signedTransfer(deposit, domain, { ...share, nonce });
      try {
        await chain.simulate({ from: keys.gasWallet.address, to: token, data });
      } catch (error) {
        throw new CannotForward(`the token refuses the ${share.share} share to ${share.to}: ${revertReason(error)}`);
      }
      calls.push({ share: share.share, data });
    }
    if (calls.length === 0) {
      await this.#completeIfDone(forward, txs, usedElsewhere);
      return [];
    }
    const multicall = (this.network.multicall ?? MULTICALL3) as Address;
    const data = encodeFunctionData({
      abi: multicallAbi, functionName: 'aggregate3',
      args: [calls.map((call) => ({ target: token, allowFailure: false, callData: call.data }))],
    });
    const gas = (await chain.estimateGas({ from: keys.gasWallet.address, to: multicall, data }).catch((error: unknown) => {
      throw new CannotForward(`the batch contract ${multicall} refuses the forward: ${revertReason(error)}`);
    })) * GAS_MARGIN_PERCENT / 100n;
    const fees = await chain.fees();
    await this.#requireGas(gas * fees.maxFeePerGas);
    return [{ purpose: 'batch', shares: calls.map((call) => call.share), signer: keys.gasWallet, senderKind: 'gas_wallet', to: multicall, data, value: 0n, gas, fees: { type: 'eip1559', ...fees } }];
  }

  /**
   * A token without EIP-3009: the deposit address sends each share itself, so the gas wallet first
   * sends it exactly the gas those transfers cost at a legacy gas price (less what it holds).
   */
  async #topUpAndShares(forward: ForwardRow, left: Array<{ share: ForwardShare; to: Address; value: bigint }>): Promise<TransactionToSign[]> {
    const { chain, keys } = this.#deps;
    const token = forward.token as Address;
    const deposit = keys.deposit(forward.deposit_index);
    const gasPrice = (await chain.gasPrice()) * BUMP_PERCENT / 100n;
    const shares: TransactionToSign[] = [];
    for (const share of left) {
      const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [share.to, share.value] });
      let gas: bigint;
      try {
        gas = await chain.estimateGas({ from: deposit.address, to: token, data });
      } catch (error) {
        throw new CannotForward(`the token refuses the ${share.share} share to ${share.to}: ${revertReason(error)}`);
      }
      shares.push({ purpose: 'share', shares: [share.share], signer: deposit, senderKind: 'deposit', to: token, data, value: 0n, gas, fees: { type: 'legacy', gasPrice } });
    }
    if (shares.length === 0) return [];
    const needed = shares.reduce((sum, tx) => sum + tx.gas * gasPrice, 0n);
    const held = await chain.balance(deposit.address);
    if (needed <= held) return shares;
    const fees = await chain.fees();
    const topUp = needed - held;
    await this.#requireGas(21_000n * fees.maxFeePerGas + topUp);
    return [
      { purpose: 'top_up', shares: [], signer: keys.gasWallet, senderKind: 'gas_wallet', to: deposit.address, data: '0x', value: topUp, gas: 21_000n, fees: { type: 'eip1559', ...fees } },
      ...shares,
    ];
  }

  async #requireGas(cost: bigint): Promise<void> {
    const wallet = this.#deps.keys.gasWallet.address;
    const balance = await this.#deps.chain.balance(wallet);
    if (balance < cost) {
      throw new CannotForward(`the gas wallet ${wallet.toLowerCase()} holds ${formatUnits(balance, 18)} of ${this.#name}'s native coin and this forward needs up to ${formatUnits(cost, 18)}: fund it`);
    }
  }

  async #transferBlock(forward: ForwardRow): Promise<number> {
    const row = await this.#deps.db.selectFrom('processor.transfers').select('block_number').where('network', '=', forward.network)
      .where('tx_hash', '=', forward.transfer_tx_hash).where('log_index', '=', forward.transfer_log_index).executeTakeFirstOrThrow();
    return row.block_number;
  }

  /** Whether a mined transaction's block is final by the network's rule and still on the chain. */
  async #isFinal(hash: Hex): Promise<boolean> {
    const receipt = await this.#deps.chain.receipt(hash);
    return receipt !== undefined && await this.#finalReceipt(receipt);
  }

  async #finalReceipt(receipt: TransactionReceipt): Promise<boolean> {
    const final = await this.#deps.chain.finalBlock();
    if (receipt.blockNumber > final.number) return false;
    const block = await this.#deps.chain.block(receipt.blockNumber);
    return block.hash === receipt.blockHash.toLowerCase();
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
      const final = await this.#finalReceipt(receipt);
      await db.updateTable('processor.forward_transactions').set({
        state: final ? 'final' : 'mined', tx_hash: hash, block_number: receipt.blockNumber, block_hash: receipt.blockHash.toLowerCase(),
        // The hash mined is the transaction's; the others were its replacements or what it replaced.
        replaced_hashes: [tx.tx_hash, ...tx.replaced_hashes].filter((other) => other !== hash),
        updated_at: clock.now(),
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
    await this.#requireGas(BigInt(tx.gas) * feeCap(fees) + BigInt(tx.value));
    const replaced = await storeReplacement(this.#deps, tx, this.#deps.keys.gasWallet, fees);
    this.#options.log(`[processor] ${this.#name}: ${tx.tx_hash} not mined in ${this.#options.replaceAfterMs / 1000} s; replaced by ${replaced.tx_hash} at ${fees.maxFeePerGas} wei per gas`);
    return replaced;
  }

  /** Why a mined transaction reverted, in the token's words when its calls still revert now. */
  async #explainRevert(forward: ForwardRow, tx: ForwardTransactionRow): Promise<string> {
    const { chain, keys } = this.#deps;
    try {
      if (tx.purpose === 'batch') {
        const shares = this.#sharesOf(forward).filter(({ share }) => tx.shares.includes(share));
        const domain = await tokenDomain(chain, forward.token as Address);
        for (const share of shares) {
          const data = await signedTransfer(keys.deposit(forward.deposit_index), domain, { ...share, nonce: authorizationNonce(forward, share.share) });
          await chain.simulate({ from: keys.gasWallet.address, to: forward.token as Address, data });
        }
      } else {
        await chain.simulate({ from: tx.sender as Address, to: tx.to_address as Address, data: tx.data as Hex, value: BigInt(tx.value) });
      }
    } catch (error) {
      return `${tx.tx_hash} reverted: ${revertReason(error)}`;
    }
    return `${tx.tx_hash} reverted`;
  }
}

/** Thrown through a pass when a test's onStep hook stops it: the process "died" there. */
export class StepInterrupted extends Error {}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
