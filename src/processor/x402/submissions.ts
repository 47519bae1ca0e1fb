import type { Selectable } from 'kysely';
import { decodeEventLog, encodeFunctionData, parseAbi, parseSignature, parseTransaction, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import { publicText } from '../../core/public-text.ts';
import type { Db } from '../../db/database.ts';
import type { ProcessorX402SubmissionsTable, X402AuthorizationsTable } from '../../db/schema.ts';
import { TRANSFER_EVENT } from '../chain/chain-client.ts';
import { isRevert, revertReason, type ForwardChain } from '../chain/forward-chain.ts';
import type { ProcessorKeys } from '../chain/keys.ts';
import { isFinalReceipt } from '../forwarding/forward-attempts.ts';
import { feeCap, sign, takeNonce, type Fees } from '../forwarding/forward-transactions.ts';
import { enqueueNotice, type OutgoingNotice } from '../notices/outbox.ts';

// Live payments over HTTP 402 (issue 33, docs/x402.md): the processor submits the buyer's
// EIP-3009 authorization, which the service verified and claimed once (x402_authorizations,
// `verified`), from its gas wallet. It first runs the call on the chain (eth_call): a refusal is
// told to the service with the protocol's reason, and nothing is signed, no nonce spent. Else the
// submission is written down with its transaction, signed under a nonce taken in the same database
// transaction, before it is broadcast; then it moves on from its row as a forward does (broadcast,
// mined with its receipt's Transfer checked, final), replaced at a higher fee when not mined in
// time. The buyer's Transfer reaches the payment's deposit address, so detection finds it and the
// payment is paid as any deposit; the gas is reported when final, for the books.

export type SubmissionRow = Selectable<ProcessorX402SubmissionsTable>;

const eip3009Abi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);

/** What an authorization waiting for the processor says. */
type Waiting = Pick<Selectable<X402AuthorizationsTable>, 'id' | 'payment_id' | 'asset' | 'payer' | 'pay_to' | 'value' | 'valid_after' | 'valid_before' | 'nonce' | 'signature'>;

export interface SubmitterOptions {
  /** Not mined this long after its broadcast: replaced at a higher fee (default 30 s: a buyer is waiting). */
  replaceAfterMs?: number;
  /** Tests: called after each step is written down; throwing there is the process dying at that step. */
  onStep?: (step: 'signed' | 'broadcast' | 'mined' | 'final', row: SubmissionRow) => void | Promise<void>;
  log?: (line: string) => void;
}

export interface SubmitterDeps {
  db: Db;
  clock: Clock;
  network: NetworkConfig;
  chain: ForwardChain;
  keys: ProcessorKeys;
}

const GAS_MARGIN_PERCENT = 120n;
const BUMP_PERCENT = 125n;
const OPEN = ['signed', 'broadcast', 'mined'] as const;

/**
 * transferWithAuthorization's calldata: the v, r, s form for a key's 65-byte signature; the bytes
 * form (FiatTokenV2_2's, which asks a contract payer with EIP-1271) for a payer with code or a
 * signature of another length.
 */
export function submissionCall(authorization: Omit<Waiting, 'id' | 'payment_id' | 'asset'>, payerIsContract: boolean): Hex {
  const args = [
    authorization.payer as Address, authorization.pay_to as Address, BigInt(authorization.value),
    BigInt(authorization.valid_after), BigInt(authorization.valid_before), authorization.nonce as Hex,
  ] as const;
  const signature = authorization.signature as Hex;
  if (signature.length === 2 + 65 * 2 && !payerIsContract) {
    const { v, r, s } = parseSignature(signature);
    return encodeFunctionData({ abi: eip3009Abi, functionName: 'transferWithAuthorization', args: [...args, Number(v ?? 27n), r, s] });
  }
  return encodeFunctionData({ abi: eip3009Abi, functionName: 'transferWithAuthorization', args: [...args, signature] });
}

/** A refusal by the chain, with the protocol's reason. */
class Refused extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

export class X402Submitter {
  readonly network: NetworkConfig;
  readonly #deps: SubmitterDeps;
  readonly #options: Required<Omit<SubmitterOptions, 'onStep'>> & Pick<SubmitterOptions, 'onStep'>;

  constructor(deps: SubmitterDeps, options: SubmitterOptions = {}) {
    this.network = deps.network;
    this.#deps = deps;
    this.#options = { replaceAfterMs: options.replaceAfterMs ?? 30_000, log: options.log ?? ((line) => console.error(line)), onStep: options.onStep };
  }

  get #caip(): string {
    return `eip155:${this.network.chainId}`;
  }

  /** Whether a submission was on its way at the end of the last pass: a buyer's request is waiting for it. */
  busy = false;

  /** Submits what waits, then moves every open submission on. */
  async pass(): Promise<void> {
    const waiting = await this.#waiting();
    for (const authorization of waiting) {
      try {
        await this.#submit(authorization);
      } catch (error) {
        // A node that did not answer: the authorization waits for the next pass.
        if (error instanceof StepStopped) throw error;
        this.#options.log(`[processor] ${this.network.name}: x402 authorization ${authorization.id} waits: ${publicText(error)}`);
      }
    }
    const open = await this.#deps.db.selectFrom('processor.x402_submissions').selectAll()
      .where('network', '=', this.network.name).where('state', 'in', OPEN).orderBy('id').execute();
    for (const row of open) {
      try {
        await this.#progress(row);
      } catch (error) {
        if (error instanceof StepStopped) throw error;
        this.#options.log(`[processor] ${this.network.name}: x402 submission ${row.id} waits: ${publicText(error)}`);
      }
    }
    const left = await this.#deps.db.selectFrom('processor.x402_submissions').select('id')
      .where('network', '=', this.network.name).where('state', 'in', OPEN).limit(1).executeTakeFirst();
    this.busy = left !== undefined;
  }

  /** Claimed authorizations of this network not submitted yet, paying a deposit address watched for their own payment. */
  #waiting(): Promise<Waiting[]> {
    return this.#deps.db.selectFrom('x402_authorizations as a')
      .innerJoin('processor.watched_addresses as w', (join) => join.onRef('w.address', '=', 'a.pay_to').onRef('w.payment_id', '=', 'a.payment_id'))
      .leftJoin('processor.x402_submissions as s', 's.authorization_id', 'a.id')
      .select(['a.id', 'a.payment_id', 'a.asset', 'a.payer', 'a.pay_to', 'a.value', 'a.valid_after', 'a.valid_before', 'a.nonce', 'a.signature'])
      .where('a.state', '=', 'verified').where('a.livemode', '=', true).where('a.network', '=', this.#caip).where('s.id', 'is', null)
      .orderBy('a.created_at').limit(50).execute();
  }

  async #step(step: 'signed' | 'broadcast' | 'mined' | 'final', row: SubmissionRow): Promise<void> {
    try {
      await this.#options.onStep?.(step, row);
    } catch (error) {
      throw new StepStopped(error instanceof Error ? error.message : String(error));
    }
  }

  /** Runs the call on the chain; refused with the protocol's reason, or signed, stored and broadcast. */
  async #submit(authorization: Waiting): Promise<void> {
    const { chain, keys, db, clock } = this.#deps;
    const token = this.network.tokens.find((candidate) => candidate.address === authorization.asset && candidate.coin.endsWith('_usdc'));
    if (!token) return this.#refuse(authorization, new Refused('invalid_payment_requirements', `${authorization.asset} is not a USDC contract ${this.network.name} is watched for`));
    // A smart account's signature is its to judge (EIP-1271): the token asks it through the bytes form.
    const code = await chain.client.getCode({ address: authorization.payer as Address });
    const data = submissionCall(authorization, code !== undefined && code !== '0x');
    const gasWallet = keys.gasWallet.address;
    try {
      await chain.simulate({ from: gasWallet, to: token.address, data });
    } catch (error) {
      if (!isRevert(error)) throw error;
      return this.#refuse(authorization, await this.#diagnose(authorization, token.address, revertReason(error)));
    }
    const gas = (await chain.estimateGas({ from: gasWallet, to: token.address, data })) * GAS_MARGIN_PERCENT / 100n;
    const fees: Fees = { type: 'eip1559', ...await chain.fees() };
    const balance = await chain.balance(gasWallet);
    if (balance < gas * feeCap(fees)) {
      this.#options.log(`[processor] ${this.network.name}: the gas wallet ${gasWallet.toLowerCase()} cannot pay to submit x402 authorization ${authorization.id}: fund it`);
      return this.#refuse(authorization, new Refused('unexpected_settle_error', 'The payment processor cannot pay the network fee to submit the authorization now. Nothing was charged: try again later.'));
    }
    const [floor, head] = await Promise.all([chain.minedNonce(gasWallet), chain.client.getBlockNumber()]);
    const now = clock.now();
    const stored = await db.transaction().execute(async (trx) => {
      // The authorization locked, and nothing of it written yet: a second processor at once signs nothing.
      await trx.selectFrom('x402_authorizations').select('id').where('id', '=', authorization.id).forUpdate().executeTakeFirstOrThrow();
      const already = await trx.selectFrom('processor.x402_submissions').select('id').where('authorization_id', '=', authorization.id).executeTakeFirst();
      if (already) return undefined;
      const sender = gasWallet.toLowerCase();
      const nonce = await takeNonce(trx, { network: this.network.name, sender, kind: 'gas_wallet', floor, now });
      const { raw, hash } = await sign(this.network.chainId, nonce, { signer: keys.gasWallet, to: token.address, data, value: 0n, gas, fees });
      return trx.insertInto('processor.x402_submissions').values({
        authorization_id: authorization.id, payment_id: authorization.payment_id, network: this.network.name, token: token.address,
        payer: authorization.payer, pay_to: authorization.pay_to, value: authorization.value, valid_before: authorization.valid_before,
        authorization_nonce: authorization.nonce, signed_block: head,
        state: 'signed', sender, nonce, gas, max_fee_per_gas: fees.maxFeePerGas.toString(), max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
        raw, tx_hash: hash, created_at: now, updated_at: now,
      }).returningAll().executeTakeFirstOrThrow();
    });
    if (!stored) return;
    this.#options.log(`[processor] ${this.network.name}: x402 authorization ${authorization.id} signed into ${stored.tx_hash} (nonce ${stored.nonce})`);
    await this.#step('signed', stored);
    await this.#progress(stored);
  }

  /** Why the chain refused the call, as the protocol names it (the official facilitator's reasons), by the chain's own state and clock. */
  async #diagnose(authorization: Waiting, token: Address, words: string): Promise<Refused> {
    const { chain } = this.#deps;
    const said = `The token refused the transfer: ${words}.`;
    if (await chain.authorizationUsed(token, authorization.payer as Address, authorization.nonce as Hex)) {
      return new Refused('invalid_exact_evm_nonce_already_used', 'This authorization was already used on the chain.');
    }
    if (await chain.tokenBalance(token, authorization.payer as Address) < BigInt(authorization.value)) {
      return new Refused('invalid_exact_evm_insufficient_balance', 'The payer\'s wallet does not hold the amount.');
    }
    // The window as the chain reads it: its latest block's time, and the time the next block takes.
    const latest = await chain.client.getBlock({ blockTag: 'latest' });
    if (BigInt(authorization.valid_before) <= latest.timestamp + 2n || /expired/i.test(words)) {
      return new Refused('invalid_exact_evm_payload_authorization_valid_before', 'The authorization expires before the chain can take it.');
    }
    if (BigInt(authorization.valid_after) >= latest.timestamp || /not yet valid/i.test(words)) {
      return new Refused('invalid_exact_evm_payload_authorization_valid_after', 'The authorization is not valid yet by the chain\'s clock.');
    }
    if (/signature|signer/i.test(words)) return new Refused('invalid_exact_evm_signature', said);
    return new Refused('invalid_exact_evm_transaction_simulation_failed', said);
  }

  /** Written down as refused, with its notice, in one database transaction: nothing was signed. */
  async #refuse(authorization: Waiting, refusal: Refused): Promise<void> {
    const { db, clock } = this.#deps;
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      const written = await trx.insertInto('processor.x402_submissions').values({
        authorization_id: authorization.id, payment_id: authorization.payment_id, network: this.network.name, token: authorization.asset,
        payer: authorization.payer, pay_to: authorization.pay_to, value: authorization.value, valid_before: authorization.valid_before,
        authorization_nonce: authorization.nonce, state: 'refused', reason: refusal.reason, failure: publicText(refusal.message, 500), created_at: now, updated_at: now,
      }).onConflict((oc) => oc.column('authorization_id').doNothing()).returning('id').executeTakeFirst();
      if (written) await enqueueNotice(trx, this.#notice('x402.refused', authorization.id, authorization, { reason: refusal.reason, message: publicText(refusal.message, 500) }), now);
    });
    this.#options.log(`[processor] ${this.network.name}: x402 authorization ${authorization.id} refused (${refusal.reason}): ${refusal.message}`);
  }

  /** A notice of an authorization (`authorizationId`: a waiting one's id, a submission's authorization_id), under an id derived from it. */
  #notice(type: 'x402.submitted' | 'x402.refused' | 'x402.final', authorizationId: string, of: { payment_id: string; pay_to: string }, rest: Partial<OutgoingNotice>): OutgoingNotice {
    return { id: `${type}:${authorizationId}`, type, authorization_id: authorizationId, payment_id: of.payment_id, deposit_address: of.pay_to, network: this.network.name, ...rest };
  }

  /** One submission one step on: broadcast, mined (its Transfer checked), final; failed when the chain says so. */
  async #progress(row: SubmissionRow): Promise<void> {
    const { db, clock, chain } = this.#deps;
    for (const hash of [row.tx_hash!, ...row.replaced_hashes]) {
      const receipt = await chain.receipt(hash as Hex);
      if (receipt) return this.#mined(row, receipt);
    }
    // None of its transactions is mined, yet the buyer's authorization may be used: by a
    // transaction not ours (anyone holding it may submit it). Its receipt is what counts.
    if (await this.#authorizationUsed(row)) {
      const hash = await chain.authorizationUse(row.token as Address, row.payer as Address, row.authorization_nonce as Hex, BigInt(row.signed_block ?? 0));
      const receipt = hash && await chain.receipt(hash);
      if (receipt) return this.#mined(row, receipt);
      return;
    }
    if (row.state === 'mined') this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} left the chain in a reorganisation; broadcasting it again`);
    if (row.state === 'broadcast' && row.broadcast_at !== null && clock.now().getTime() - row.broadcast_at.getTime() >= this.#options.replaceAfterMs) {
      row = await this.#replace(row);
    }
    const sent = await chain.broadcast(row.raw as Hex);
    if (!sent.ok && sent.refusal === 'nonce_used') {
      // Its nonce is spent: by its own transaction, mined since the receipts were read (then the
      // authorization is used, and the next pass reads the receipt), or by one not the processor's.
      if (await this.#authorizationUsed(row)) return;
      return this.#fail(row, 'invalid_transaction_state', `nonce ${row.nonce} of the gas wallet was spent by a transaction not the processor's, and the authorization is unused: it was not submitted.`, '');
    }
    if (!sent.ok && sent.refusal !== 'known') this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} not taken (${sent.message}); tried again`);
    if (row.state === 'signed' || row.state === 'mined') {
      const now = clock.now();
      const broadcast = await db.transaction().execute(async (trx) => {
        const next = await trx.updateTable('processor.x402_submissions').set({ state: 'broadcast', broadcast_at: row.broadcast_at ?? now, updated_at: now })
          .where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).returningAll().executeTakeFirst();
        if (next && row.state === 'signed') await enqueueNotice(trx, this.#notice('x402.submitted', next.authorization_id, next, { txid: next.tx_hash! }), now);
        return next;
      });
      if (broadcast && row.state === 'signed') await this.#step('broadcast', broadcast);
    }
  }

  #authorizationUsed(row: SubmissionRow): Promise<boolean> {
    return this.#deps.chain.authorizationUsed(row.token as Address, row.payer as Address, row.authorization_nonce as Hex);
  }

  /**
   * A transaction that carried the authorization is mined (ours, or one not ours): it counts
   * once its receipt shows the buyer's Transfer; final by the network's rule, the gas ours paid is
   * reported. A revert, or a receipt without the Transfer, fails the submission: nothing moved.
   */
  async #mined(row: SubmissionRow, receipt: TransactionReceipt): Promise<void> {
    const { db, clock, chain } = this.#deps;
    const hash = receipt.transactionHash.toLowerCase();
    const moved = receipt.status === 'success' ? this.#transferLog(receipt, row) : undefined;
    if (moved === undefined) {
      const reverted = receipt.status !== 'success';
      return this.#fail(row, reverted ? 'invalid_exact_evm_transaction_failed' : 'invalid_exact_evm_transfer_event_mismatch',
        reverted ? `${hash} reverted: the token refused the transfer when it was mined.` : `${hash} was mined but its receipt shows no Transfer of ${row.value} from ${row.payer} to ${row.pay_to}.`, hash);
    }
    const ours = [row.tx_hash!, ...row.replaced_hashes].includes(hash);
    const final = await isFinalReceipt(chain, receipt);
    const now = clock.now();
    const values = {
      tx_hash: hash, replaced_hashes: [row.tx_hash!, ...row.replaced_hashes].filter((other) => other !== hash),
      block_number: receipt.blockNumber, block_hash: receipt.blockHash.toLowerCase(), transfer_log_index: moved,
      // A transaction not ours cost the gas wallet nothing.
      gas_cost: ours ? (receipt.gasUsed * receipt.effectiveGasPrice).toString() : '0', state: final ? 'final' as const : 'mined' as const, updated_at: now,
    };
    const updated = await db.transaction().execute(async (trx) => {
      const next = await trx.updateTable('processor.x402_submissions').set(values).where('id', '=', row.id).where('state', 'in', OPEN).returningAll().executeTakeFirst();
      if (next && final && ours) {
        // The gas the gas wallet paid, for the books: reported once the submission is final.
        await enqueueNotice(trx, this.#notice('x402.final', next.authorization_id, next, {
          txid: hash, movements: [{
            kind: 'x402_gas', txid: hash, log_index: null, block_number: Number(receipt.blockNumber),
            from: next.sender!, to: next.token, token: null, value: next.gas_cost!, decimals: 18,
          }],
        }), now);
      }
      return next;
    });
    if (updated && row.state !== updated.state) await this.#step(updated.state === 'final' ? 'final' : 'mined', updated);
  }

  /** The log index of the buyer's Transfer in the receipt (emitted by the token, exactly as authorized), if it is there. */
  #transferLog(receipt: TransactionReceipt, row: SubmissionRow): number | undefined {
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== row.token) continue;
      try {
        const { args } = decodeEventLog({ abi: [TRANSFER_EVENT], data: log.data, topics: log.topics, strict: true });
        if (args.from.toLowerCase() === row.payer && args.to.toLowerCase() === row.pay_to && args.value === BigInt(row.value)) return log.logIndex;
      } catch {
        // Another event of the token.
      }
    }
    return undefined;
  }

  async #fail(row: SubmissionRow, reason: string, failure: string, minedHash: string): Promise<void> {
    const now = this.#deps.clock.now();
    await this.#deps.db.transaction().execute(async (trx) => {
      const failed = await trx.updateTable('processor.x402_submissions')
        .set({ state: 'failed', reason, failure: publicText(failure, 500), ...(minedHash ? { tx_hash: minedHash.toLowerCase() } : {}), updated_at: now })
        .where('id', '=', row.id).where('state', 'in', OPEN).returningAll().executeTakeFirst();
      if (failed) await enqueueNotice(trx, this.#notice('x402.refused', failed.authorization_id, failed, { reason, message: publicText(failure, 500), ...(minedHash ? { txid: minedHash.toLowerCase() } : {}) }), now);
    });
    this.#options.log(`[processor] ${this.network.name}: x402 submission ${row.id} failed (${reason}): ${failure}`);
  }

  /** The same call under the same nonce, at a fee 25 % higher (or what the node asks now, if more), stored before it is broadcast. */
  async #replace(row: SubmissionRow): Promise<SubmissionRow> {
    const { chain, db, clock, keys } = this.#deps;
    const now = await chain.fees();
    const bump = (old: string, current: bigint) => {
      const raised = BigInt(old) * BUMP_PERCENT / 100n + 1n;
      return raised > current ? raised : current;
    };
    const fees: Fees = { type: 'eip1559', maxFeePerGas: bump(row.max_fee_per_gas!, now.maxFeePerGas), maxPriorityFeePerGas: bump(row.max_priority_fee_per_gas!, now.maxPriorityFeePerGas) };
    // The same call: read back from the transaction stored.
    const data = parseTransaction(row.raw as Hex).data ?? '0x';
    const { raw, hash } = await sign(this.network.chainId, Number(row.nonce), { signer: keys.gasWallet, to: row.token as Address, data, value: 0n, gas: BigInt(row.gas!), fees });
    const replaced = await db.updateTable('processor.x402_submissions').set({
      raw, tx_hash: hash, replaced_hashes: [...row.replaced_hashes, row.tx_hash!], max_fee_per_gas: fees.maxFeePerGas.toString(),
      max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(), broadcast_at: clock.now(), updated_at: clock.now(),
    }).where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).returningAll().executeTakeFirstOrThrow();
    this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} not mined in ${this.#options.replaceAfterMs / 1000} s; replaced by ${hash}`);
    return replaced;
  }
}

/** Thrown through a pass when a test's onStep hook stops it: the process "died" there. */
export class StepStopped extends Error {}

/** One submitter per network, the processor's step for each network whose lock it holds. */
export function startX402Submissions(deps: Omit<SubmitterDeps, 'network' | 'chain'> & { networks: NetworkConfig[]; chainOf: (network: NetworkConfig) => ForwardChain }, options: SubmitterOptions = {}) {
  const submitters = deps.networks.map((network) => new X402Submitter({ ...deps, network, chain: deps.chainOf(network) }, options));
  return {
    submitters,
    async submitNetwork(network: NetworkConfig): Promise<void> {
      await submitters.find((submitter) => submitter.network.name === network.name)?.pass();
    },
    /** Whether the network has a submission on its way (the processor then passes it more often: a buyer waits). */
    busy(name: string): boolean {
      return submitters.some((submitter) => submitter.network.name === name && submitter.busy);
    },
  };
}
