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
//
// When its own transaction will not carry the authorization (another transaction carried it, the
// payer canceled it, it expired unmined, ours reverted), the submission is `closing` until the
// nonce it took is spent (migrations/0051): by its own transaction mined, or by a 0-value transfer
// to the gas wallet itself under that nonce. A refusal is told only once the chain shows that the
// authorization moved nothing; a use by another transaction is no refusal: it paid the deposit.

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
/** A transaction bidding this many times the node's fee now is not outbid again: it is not mined for another reason (then it is broadcast again). */
const FEE_CEILING_TIMES = 3n;
/** A 0-value transfer's gas: what spends a nonce the authorization's transaction will not. */
const SELF_TRANSFER_GAS = 21_000n;
/** How far back an authorization's use is looked for when nothing of the processor's carried it yet. */
const LOOKBACK_BLOCKS = 2_000n;
/** A payment this close to its end is not submitted for: its deposit would arrive late (held). */
const EXPIRY_MARGIN_MS = 60_000;
const OPEN = ['signed', 'broadcast', 'mined', 'closing'] as const;
/** A buyer's request waits on these; a submission mined or closing waits for finality, at the usual pace. */
const ON_ITS_WAY = ['signed', 'broadcast'] as const;

/**
 * transferWithAuthorization's calldata: the v, r, s form for a key's 65-byte signature; the bytes
 * form (FiatTokenV2_2's, which asks a contract payer with EIP-1271) for a payer with code, a
 * signature of another length, or one whose v is no key's (the token then refuses it in the
 * simulation). Throws when a value does not fit its type: that authorization can never be sent.
 */
export function submissionCall(authorization: Omit<Waiting, 'id' | 'payment_id' | 'asset'>, payerIsContract: boolean): Hex {
  const args = [
    authorization.payer as Address, authorization.pay_to as Address, BigInt(authorization.value),
    BigInt(authorization.valid_after), BigInt(authorization.valid_before), authorization.nonce as Hex,
  ] as const;
  const signature = authorization.signature as Hex;
  const split = signature.length === 2 + 65 * 2 && !payerIsContract ? keySignature(signature) : undefined;
  if (split) return encodeFunctionData({ abi: eip3009Abi, functionName: 'transferWithAuthorization', args: [...args, split.v, split.r, split.s] });
  return encodeFunctionData({ abi: eip3009Abi, functionName: 'transferWithAuthorization', args: [...args, signature] });
}

function keySignature(signature: Hex): { v: number; r: Hex; s: Hex } | undefined {
  try {
    const { v, r, s } = parseSignature(signature);
    return { v: Number(v ?? 27n), r, s };
  } catch {
    return undefined;
  }
}

/** A refusal by the chain, with the protocol's reason. */
class Refused extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A transaction not the processor's that carried the authorization: its receipt, and the buyer's Transfer in it. */
interface Carried {
  receipt: TransactionReceipt;
  logIndex: number;
}

/** What the chain says of an authorization the processor's transaction did not carry; `unknown` while its use is not visible yet. */
type Fate = Carried | Refused | 'unknown';

/** The authorization as the chain names it, and what it pays. */
type Authorized = Pick<SubmissionRow, 'token' | 'payer' | 'pay_to' | 'value' | 'authorization_nonce'>;

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

  /** Whether a submission was on its way to a block at the end of the last pass: a buyer's request is waiting for it. */
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
      .where('network', '=', this.network.name).where('state', 'in', ON_ITS_WAY).limit(1).executeTakeFirst();
    this.busy = left !== undefined;
  }

  /** Claimed authorizations of this network not submitted yet, paying a deposit address watched for their own payment. */
  #waiting(): Promise<Waiting[]> {
    return this.#deps.db.selectFrom('x402_authorizations as a')
      .innerJoin('processor.watched_addresses as w', (join) => join.onRef('w.address', '=', 'a.pay_to').onRef('w.payment_id', '=', 'a.payment_id'))
      .leftJoin('processor.x402_submissions as s', 's.authorization_id', 'a.id')
      .select(['a.id', 'a.payment_id', 'a.asset', 'a.payer', 'a.pay_to', 'a.value', 'a.valid_after', 'a.valid_before', 'a.nonce', 'a.signature'])
      .where('a.state', '=', 'verified').where('a.livemode', '=', true).where('a.network', '=', this.#caip).where('s.id', 'is', null)
      .where('w.watch_until', '>', this.#deps.clock.now())
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
    let data: Hex;
    try {
      data = submissionCall(authorization, code !== undefined && code !== '0x');
    } catch (error) {
      // A value beyond its type (the service bounds them; a claim from before it did not): never sendable.
      return this.#refuse(authorization, new Refused('invalid_payload', `The authorization cannot be encoded as a transaction: ${publicText(error, 200)}`));
    }
    const gasWallet = keys.gasWallet.address;
    try {
      await chain.simulate({ from: gasWallet, to: token.address, data });
    } catch (error) {
      if (!isRevert(error)) throw error;
      const fate = await this.#diagnose(authorization, token.address, revertReason(error));
      if (fate === 'unknown') return;
      return fate instanceof Refused ? this.#refuse(authorization, fate) : this.#carriedBefore(authorization, token.address, fate);
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
      // The authorization locked, still claimed, and nothing of it written yet: a second processor at once signs nothing.
      const claim = await trx.selectFrom('x402_authorizations').select('state').where('id', '=', authorization.id).forUpdate().executeTakeFirstOrThrow();
      const already = await trx.selectFrom('processor.x402_submissions').select('id').where('authorization_id', '=', authorization.id).executeTakeFirst();
      if (claim.state !== 'verified' || already) return undefined;
      // The payment still takes money, and long enough for the deposit to be on time: paid another way meanwhile, the buyer would pay twice.
      const payment = await trx.selectFrom('payments').select(['status', 'expires_at']).where('id', '=', authorization.payment_id).executeTakeFirst();
      if (!payment || (payment.status !== 'open' && payment.status !== 'pending') || payment.expires_at.getTime() <= now.getTime() + EXPIRY_MARGIN_MS) return 'closed' as const;
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
    if (stored === 'closed') {
      return this.#refuse(authorization, new Refused('invalid_transaction_state', 'The payment was paid, closed or about to expire before the authorization could be submitted. Nothing was charged.'));
    }
    if (!stored) return;
    this.#options.log(`[processor] ${this.network.name}: x402 authorization ${authorization.id} signed into ${stored.tx_hash} (nonce ${stored.nonce})`);
    await this.#step('signed', stored);
    await this.#progress(stored, true);
  }

  /**
   * Why the chain refused the call, as the protocol names it (the official facilitator's reasons),
   * by the chain's own state and clock; or the transaction that carried it already (the payer, or
   * anyone holding it, submitted it first): that is no refusal.
   */
  async #diagnose(authorization: Waiting, token: Address, words: string): Promise<Fate> {
    const { chain } = this.#deps;
    const said = `The token refused the transfer: ${words}.`;
    const authorized: Authorized = { token, payer: authorization.payer, pay_to: authorization.pay_to, value: authorization.value, authorization_nonce: authorization.nonce };
    if (await chain.authorizationUsed(token, authorization.payer as Address, authorization.nonce as Hex)) {
      const head = await chain.client.getBlockNumber();
      const fate = await this.#use(authorized, head > LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n, []);
      return fate === 'unknown' ? new Refused('invalid_exact_evm_nonce_already_used', 'This authorization was already used on the chain.') : fate;
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

  /**
   * A used authorization: the transaction that used it (from `fromBlock` on), when its receipt
   * shows the buyer's Transfer to the deposit address; refused when the payer canceled it, or its
   * nonce moved money elsewhere; `unknown` when its use is not visible yet, or was by `own`.
   */
  async #use(authorized: Authorized, fromBlock: bigint, own: string[]): Promise<Fate> {
    const { chain } = this.#deps;
    const [token, payer, nonce] = [authorized.token as Address, authorized.payer as Address, authorized.authorization_nonce as Hex];
    const hash = await chain.authorizationUse(token, payer, nonce, fromBlock);
    if (hash) {
      if (own.includes(hash.toLowerCase())) return 'unknown';
      const receipt = await chain.receipt(hash);
      if (!receipt) return 'unknown';
      const logIndex = receipt.status === 'success' ? this.#transferLog(receipt, authorized) : undefined;
      if (logIndex !== undefined) return { receipt, logIndex };
      return new Refused('invalid_exact_evm_nonce_already_used', `The payer's authorization nonce was used by ${hash.toLowerCase()}, which moved nothing to this payment.`);
    }
    if (await chain.authorizationCanceled(token, payer, nonce, fromBlock)) {
      return new Refused('invalid_exact_evm_nonce_already_used', 'The payer canceled the authorization on the chain (cancelAuthorization): nothing moved.');
    }
    return 'unknown';
  }

  /** Written down as refused, with its notice, in one database transaction: nothing was signed. */
  async #refuse(authorization: Waiting, refusal: Refused): Promise<void> {
    const { db, clock } = this.#deps;
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      const written = await trx.insertInto('processor.x402_submissions').values({
        ...this.#unsigned(authorization, now), state: 'refused', reason: refusal.reason, failure: publicText(refusal.message, 500),
      }).onConflict((oc) => oc.column('authorization_id').doNothing()).returning('id').executeTakeFirst();
      if (written) await enqueueNotice(trx, this.#notice('x402.refused', authorization.id, authorization, { reason: refusal.reason, message: publicText(refusal.message, 500) }), now);
    });
    this.#options.log(`[processor] ${this.network.name}: x402 authorization ${authorization.id} refused (${refusal.reason}): ${refusal.message}`);
  }

  /** Carried before the processor signed anything: written down as final, no nonce taken. Detection pays the payment by its deposit. */
  async #carriedBefore(authorization: Waiting, token: Address, carried: Carried): Promise<void> {
    const { db, clock } = this.#deps;
    const hash = carried.receipt.transactionHash.toLowerCase();
    await db.insertInto('processor.x402_submissions').values({
      ...this.#unsigned(authorization, clock.now()), token, state: 'final', carried_by: hash,
      block_number: carried.receipt.blockNumber, block_hash: carried.receipt.blockHash.toLowerCase(), transfer_log_index: carried.logIndex,
    }).onConflict((oc) => oc.column('authorization_id').doNothing()).execute();
    this.#options.log(`[processor] ${this.network.name}: x402 authorization ${authorization.id} was carried by ${hash}, not the processor's: nothing to submit`);
  }

  #unsigned(authorization: Waiting, now: Date) {
    return {
      authorization_id: authorization.id, payment_id: authorization.payment_id, network: this.network.name, token: authorization.asset,
      payer: authorization.payer, pay_to: authorization.pay_to, value: authorization.value, valid_before: authorization.valid_before,
      authorization_nonce: authorization.nonce, created_at: now, updated_at: now,
    };
  }

  /** A notice of an authorization (`authorizationId`: a waiting one's id, a submission's authorization_id), under an id derived from it. */
  #notice(type: 'x402.submitted' | 'x402.refused' | 'x402.final', authorizationId: string, of: { payment_id: string; pay_to: string }, rest: Partial<OutgoingNotice>): OutgoingNotice {
    return { id: `${type}:${authorizationId}`, type, authorization_id: authorizationId, payment_id: of.payment_id, deposit_address: of.pay_to, network: this.network.name, ...rest };
  }

  /** The receipt of the processor's own transaction that is mined, if one is (any hash it ever had). */
  async #ownReceipt(row: SubmissionRow): Promise<TransactionReceipt | undefined> {
    for (const hash of [row.tx_hash!, ...row.replaced_hashes]) {
      const receipt = await this.#deps.chain.receipt(hash as Hex);
      if (receipt) return receipt;
    }
    return undefined;
  }

  /** One submission one step on: broadcast, mined (its Transfer checked), final; closing when its own transaction will not carry the authorization. */
  async #progress(row: SubmissionRow, signedNow = false): Promise<void> {
    const { db, clock, chain } = this.#deps;
    // Signed this moment after the chain ran its call: straight to the broadcast (a buyer waits).
    const own = signedNow ? undefined : await this.#ownReceipt(row);
    if (row.state === 'closing') return this.#close(row, own);
    const moved = own?.status === 'success' ? this.#transferLog(own, row) : undefined;
    if (own && moved !== undefined) return this.#mined(row, own, moved);
    // Not carried by ours (unmined, or mined and moving nothing): what does the chain say of the authorization?
    const fate = signedNow ? undefined : await this.#fate(row);
    if (fate === 'unknown') return;
    if (fate) return this.#closeWith(row, fate, own);
    if (own) {
      // Ours mined, moved nothing, and the authorization is unused: the token refused it when it was mined.
      const hash = own.transactionHash.toLowerCase();
      const refusal = own.status === 'success'
        ? new Refused('invalid_exact_evm_transfer_event_mismatch', `${hash} was mined but its receipt shows no Transfer of ${row.value} from ${row.payer} to ${row.pay_to}.`)
        : new Refused('invalid_exact_evm_transaction_failed', `${hash} reverted: the token refused the transfer when it was mined.`);
      return this.#closeWith(row, refusal, own);
    }
    if (row.state === 'mined') this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} left the chain in a reorganisation; broadcasting it again`);
    const since = row.broadcast_at ?? row.created_at;
    if (row.state !== 'mined' && clock.now().getTime() - since.getTime() >= this.#options.replaceAfterMs) row = await this.#replace(row);
    const sent = await chain.broadcast(row.raw as Hex);
    if (!sent.ok && sent.refusal === 'nonce_used') {
      // Its nonce is spent: by its own transaction, mined since the receipts were read (the next
      // pass reads it), or by one not the processor's: then ours can never be mined.
      if (await this.#ownReceipt(row)) return;
      return this.#closeWith(row, new Refused('unexpected_settle_error', `nonce ${row.nonce} of the gas wallet was spent by a transaction not the processor's before the authorization's: it was not submitted, and nothing moved.`), undefined);
    }
    if (!sent.ok && sent.refusal !== 'known') {
      // Not taken (the gas wallet cannot pay, or the fee is too low): not on its way; replaced when due.
      this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} not taken (${sent.message}); tried again${sent.refusal === 'no_funds' ? ': fund the gas wallet' : ''}`);
      return;
    }
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

  /**
   * What became of the authorization when the processor's transaction did not carry it: carried
   * by another's, canceled, expired by the chain's clock, or nothing yet (undefined). The state is
   * read as of the latest block, whose time then bounds every block that could still take ours.
   */
  async #fate(row: SubmissionRow): Promise<Fate | undefined> {
    const { chain } = this.#deps;
    const latest = await chain.client.getBlock({ blockTag: 'latest' });
    if (await chain.authorizationUsed(row.token as Address, row.payer as Address, row.authorization_nonce as Hex, latest.number)) {
      // Unused when it was simulated, a little before signed_block: its use is after.
      const from = BigInt(row.signed_block ?? 0);
      return this.#use(row, from > 5n ? from - 5n : 0n, [row.tx_hash!, ...row.replaced_hashes]);
    }
    if (BigInt(row.valid_before) <= latest.timestamp) {
      return new Refused('invalid_exact_evm_payload_authorization_valid_before', 'The authorization expired before a block took its transaction: nothing moved.');
    }
    return undefined;
  }

  /**
   * The authorization's fate is known and not ours to carry: refused (told to the service now:
   * the chain shows nothing moved) or carried by another (detection pays the payment by its
   * deposit). The submission is closing until its nonce is spent.
   */
  async #closeWith(row: SubmissionRow, fate: Carried | Refused, own: TransactionReceipt | undefined): Promise<void> {
    const { db, clock } = this.#deps;
    const now = clock.now();
    const ownHash = own?.transactionHash.toLowerCase();
    const values = fate instanceof Refused
      ? { reason: fate.reason, failure: publicText(fate.message, 500) }
      : { carried_by: fate.receipt.transactionHash.toLowerCase(), block_number: fate.receipt.blockNumber, block_hash: fate.receipt.blockHash.toLowerCase(), transfer_log_index: fate.logIndex };
    const closing = await db.transaction().execute(async (trx) => {
      const next = await trx.updateTable('processor.x402_submissions').set({ ...values, state: 'closing', updated_at: now })
        .where('id', '=', row.id).where('state', 'in', ['signed', 'broadcast', 'mined']).returningAll().executeTakeFirst();
      if (next && fate instanceof Refused) {
        await enqueueNotice(trx, this.#notice('x402.refused', next.authorization_id, next, { reason: fate.reason, message: publicText(fate.message, 500), ...(ownHash ? { txid: ownHash } : {}) }), now);
      }
      return next;
    });
    if (!closing) return;
    this.#options.log(fate instanceof Refused
      ? `[processor] ${this.network.name}: x402 submission ${row.id} refused (${fate.reason}): ${fate.message}`
      : `[processor] ${this.network.name}: x402 authorization ${row.authorization_id} was carried by ${closing.carried_by}, not the processor's transaction`);
    await this.#close(closing, own);
  }

  /**
   * A closing submission: its nonce spent by its own transaction once final (the gas reported for
   * the books), else spent by a 0-value transfer to the gas wallet itself, stored before it is
   * broadcast, as any replacement.
   */
  async #close(row: SubmissionRow, own: TransactionReceipt | undefined): Promise<void> {
    const { chain, clock } = this.#deps;
    if (own?.status === 'success' && this.#transferLog(own, row) !== undefined) {
      // Taken back by a reorganisation and mined again: it carried the authorization after all.
      return this.#mined(row, own, this.#transferLog(own, row)!);
    }
    const end = row.carried_by ? 'final' as const : 'failed' as const;
    if (own) {
      if (await isFinalReceipt(chain, own)) await this.#end(row, end, own);
      return;
    }
    const due = clock.now().getTime() - (row.broadcast_at ?? row.created_at).getTime() >= this.#options.replaceAfterMs;
    if (!this.#isSelfTransfer(row)) row = await this.#replace(row, { to: row.sender as Address, data: '0x', gas: SELF_TRANSFER_GAS });
    else if (due) row = await this.#replace(row);
    const sent = await chain.broadcast(row.raw as Hex);
    if (!sent.ok && sent.refusal === 'nonce_used' && !(await this.#ownReceipt(row))) {
      // Spent by a transaction not the processor's (another holder of the gas wallet's key): nothing of ours to book.
      this.#options.log(`[processor] ${this.network.name}: nonce ${row.nonce} of ${row.sender} was spent by a transaction not the processor's`);
      return this.#end(row, end, undefined);
    }
    if (!sent.ok && sent.refusal !== 'known') this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} (nonce ${row.nonce}) not taken (${sent.message}); tried again`);
    else if (row.broadcast_at === null) {
      await this.#deps.db.updateTable('processor.x402_submissions').set({ broadcast_at: clock.now(), updated_at: clock.now() }).where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).execute();
    }
  }

  #isSelfTransfer(row: SubmissionRow): boolean {
    return parseTransaction(row.raw as Hex).to?.toLowerCase() === row.sender;
  }

  /** Closed: `final` (carried) or `failed` (refused), with the gas the processor's mined transaction cost, reported for the books. */
  async #end(row: SubmissionRow, end: 'final' | 'failed', own: TransactionReceipt | undefined): Promise<void> {
    const { db, clock } = this.#deps;
    const now = clock.now();
    const hash = own?.transactionHash.toLowerCase();
    const cost = own ? own.gasUsed * own.effectiveGasPrice : 0n;
    await db.transaction().execute(async (trx) => {
      const ended = await trx.updateTable('processor.x402_submissions').set({
        state: end, gas_cost: cost.toString(), updated_at: now,
        ...(hash ? { tx_hash: hash, replaced_hashes: [row.tx_hash!, ...row.replaced_hashes].filter((other) => other !== hash) } : {}),
      }).where('id', '=', row.id).where('state', '=', 'closing').returningAll().executeTakeFirst();
      if (ended && own && hash) await enqueueNotice(trx, this.#notice('x402.final', ended.authorization_id, ended, { txid: hash, movements: [this.#gasMovement(ended, own)] }), now);
    });
  }

  /** The gas the gas wallet paid for a transaction of a submission, as the books take it. */
  #gasMovement(row: SubmissionRow, receipt: TransactionReceipt): NonNullable<OutgoingNotice['movements']>[number] {
    return {
      kind: 'x402_gas', txid: receipt.transactionHash.toLowerCase(), log_index: null, block_number: Number(receipt.blockNumber),
      from: row.sender!, to: parseTransaction(row.raw as Hex).to?.toLowerCase() ?? row.token, token: null, value: (receipt.gasUsed * receipt.effectiveGasPrice).toString(), decimals: 18,
    };
  }

  /**
   * The processor's own transaction carried the authorization: its receipt showed the buyer's
   * Transfer. Final by the network's rule, the gas it cost is reported.
   */
  async #mined(row: SubmissionRow, receipt: TransactionReceipt, moved: number): Promise<void> {
    const { db, clock, chain } = this.#deps;
    const hash = receipt.transactionHash.toLowerCase();
    const final = await isFinalReceipt(chain, receipt);
    const now = clock.now();
    const values = {
      tx_hash: hash, replaced_hashes: [row.tx_hash!, ...row.replaced_hashes].filter((other) => other !== hash),
      block_number: receipt.blockNumber, block_hash: receipt.blockHash.toLowerCase(), transfer_log_index: moved, carried_by: null, reason: null, failure: null,
      gas_cost: (receipt.gasUsed * receipt.effectiveGasPrice).toString(), state: final ? 'final' as const : 'mined' as const, updated_at: now,
    };
    const updated = await db.transaction().execute(async (trx) => {
      const next = await trx.updateTable('processor.x402_submissions').set(values).where('id', '=', row.id).where('state', 'in', OPEN).returningAll().executeTakeFirst();
      // The gas the gas wallet paid, for the books: reported once the submission is final.
      if (next && final) await enqueueNotice(trx, this.#notice('x402.final', next.authorization_id, next, { txid: hash, movements: [this.#gasMovement(next, receipt)] }), now);
      return next;
    });
    if (updated && row.state !== updated.state) await this.#step(updated.state === 'final' ? 'final' : 'mined', updated);
  }

  /** The log index of the buyer's Transfer in the receipt (emitted by the token, exactly as authorized), if it is there. */
  #transferLog(receipt: TransactionReceipt, authorized: Authorized): number | undefined {
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== authorized.token) continue;
      try {
        const { args } = decodeEventLog({ abi: [TRANSFER_EVENT], data: log.data, topics: log.topics, strict: true });
        if (args.from.toLowerCase() === authorized.payer && args.to.toLowerCase() === authorized.pay_to && args.value === BigInt(authorized.value)) return log.logIndex;
      } catch {
        // Another event of the token.
      }
    }
    return undefined;
  }

  /**
   * The same nonce at a fee 25 % higher (or what the node asks now, if more), stored before it is
   * broadcast: the same call, or `call` (the 0-value transfer that spends a closing submission's
   * nonce). Not outbid again when it bids three times the node's fee already, nor when the gas
   * wallet cannot pay the new bid (then the transaction stored is broadcast again, as it is).
   */
  async #replace(row: SubmissionRow, call?: { to: Address; data: Hex; gas: bigint }): Promise<SubmissionRow> {
    const { chain, db, clock, keys } = this.#deps;
    const now = await chain.fees();
    if (!call && BigInt(row.max_fee_per_gas!) >= now.maxFeePerGas * FEE_CEILING_TIMES) return row;
    const bump = (old: string, current: bigint) => {
      const raised = BigInt(old) * BUMP_PERCENT / 100n + 1n;
      return raised > current ? raised : current;
    };
    const fees: Fees = { type: 'eip1559', maxFeePerGas: bump(row.max_fee_per_gas!, now.maxFeePerGas), maxPriorityFeePerGas: bump(row.max_priority_fee_per_gas!, now.maxPriorityFeePerGas) };
    const stored = parseTransaction(row.raw as Hex);
    const next = call ?? { to: stored.to as Address, data: stored.data ?? '0x', gas: BigInt(row.gas!) };
    if (await chain.balance(keys.gasWallet.address) < next.gas * feeCap(fees)) {
      this.#options.log(`[processor] ${this.network.name}: the gas wallet ${row.sender} cannot pay to replace ${row.tx_hash}: fund it`);
      return row;
    }
    const { raw, hash } = await sign(this.network.chainId, Number(row.nonce), { signer: keys.gasWallet, ...next, value: 0n, fees });
    const replaced = await db.updateTable('processor.x402_submissions').set({
      raw, tx_hash: hash, replaced_hashes: [...row.replaced_hashes, row.tx_hash!], gas: next.gas, max_fee_per_gas: fees.maxFeePerGas.toString(),
      max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(), broadcast_at: clock.now(), updated_at: clock.now(),
    }).where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).returningAll().executeTakeFirstOrThrow();
    this.#options.log(call
      ? `[processor] ${this.network.name}: ${row.tx_hash} will not carry the authorization; its nonce ${row.nonce} is spent by ${hash}, a 0-value transfer to the gas wallet`
      : `[processor] ${this.network.name}: ${row.tx_hash} not mined in ${this.#options.replaceAfterMs / 1000} s; replaced by ${hash}`);
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
