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
type Waiting = Pick<Selectable<X402AuthorizationsTable>, 'id' | 'payment_id' | 'asset' | 'payer' | 'pay_to' | 'value' | 'valid_after' | 'valid_before' | 'nonce' | 'signature'> & {
  /** When the payment started (its deposit address watched from then): no use of this authorization is older. */
  watch_from: Date;
};

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
/** A nonce spent with none of the processor's transactions mined is taken for spent elsewhere only this long after signing. */
const SPENT_ELSEWHERE_AFTER_MS = 15 * 60_000;
/** A payment this close to its end is not submitted for: its deposit would arrive late (held). */
const EXPIRY_MARGIN_MS = 60_000;
/** The states in which the processor's own transaction may still carry the authorization. */
const CARRYING = ['signed', 'broadcast', 'mined'] as const;
const OPEN = [...CARRYING, 'closing'] as const;
/** How long a buyer's request may wait for its settlement (X402_SETTLE_WAIT_SECONDS is at most 25 s), with a margin. */
const BUYER_WAITS_MS = 30_000;

/**
 * transferWithAuthorization's calldata: the v, r, s form for a key's 65-byte signature; the bytes
 * form (FiatTokenV2_2's, which asks a contract payer with EIP-1271) for a payer with code, a
 * signature of another length, or one whose v is no key's (the token then refuses it in the
 * simulation). Throws when a value does not fit its type: that authorization can never be sent.
 */
export function submissionCall(authorization: Omit<Waiting, 'id' | 'payment_id' | 'asset' | 'watch_from'>, payerIsContract: boolean): Hex {
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
    // A compact signature (its last byte 0 or 1) carries the parity, not v.
    const { v, yParity, r, s } = parseSignature(signature);
    return { v: v === undefined ? yParity + 27 : Number(v), r, s };
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

  /** Whether a submission a buyer's request may be waiting for was on its way at the end of the last pass. */
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
    // Hurried while a buyer's request may be waiting: for the block, for finality (on Polygon
    // seconds; on Base and Ethereum minutes, waited for at the usual pace once the request gave up;
    // so is a transaction stuck in the pool), and, final, for detection to find the deposit (it
    // scans before this step: the block that made it final may have come in between).
    const recent = new Date(this.#deps.clock.now().getTime() - BUYER_WAITS_MS);
    const left = await this.#deps.db.selectFrom('processor.x402_submissions').select('id')
      .where('network', '=', this.network.name).where('state', '<>', 'refused').where('created_at', '>', recent).limit(1).executeTakeFirst();
    this.busy = left !== undefined;
  }

  /** Claimed authorizations of this network not submitted yet, paying a deposit address watched for their own payment. */
  #waiting(): Promise<Waiting[]> {
    return this.#deps.db.selectFrom('x402_authorizations as a')
      .innerJoin('processor.watched_addresses as w', (join) => join.onRef('w.address', '=', 'a.pay_to').onRef('w.payment_id', '=', 'a.payment_id'))
      .leftJoin('processor.x402_submissions as s', 's.authorization_id', 'a.id')
      .select(['a.id', 'a.payment_id', 'a.asset', 'a.payer', 'a.pay_to', 'a.value', 'a.valid_after', 'a.valid_before', 'a.nonce', 'a.signature', 'w.watch_from'])
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
    let data: Hex;
    try {
      data = submissionCall(authorization, code !== undefined && code !== '0x');
    } catch (error) {
      // A value beyond its type (the service bounds them; a claim from before it did not): never sendable.
      return this.#refuse(authorization, new Refused('invalid_payload', `The authorization cannot be encoded as a transaction: ${publicText(error, 200)}`));
    }
    const gasWallet = keys.gasWallet.address;
    // One block for the call and every read that explains it: a node without it errors, rather
    // than answering from older state.
    const head = await chain.client.getBlockNumber({ cacheTime: 0 });
    try {
      await chain.simulate({ from: gasWallet, to: token.address, data, blockNumber: head });
    } catch (error) {
      if (!isRevert(error)) throw error;
      const fate = await this.#diagnose(authorization, token.address, revertReason(error), head);
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
    const floor = await chain.minedNonce(gasWallet);
    const now = clock.now();
    const stored = await db.transaction().execute(async (trx) => {
      // The authorization locked, still claimed, and nothing of it written yet: a second processor at once signs nothing.
      const claim = await trx.selectFrom('x402_authorizations').select('state').where('id', '=', authorization.id).forUpdate().executeTakeFirstOrThrow();
      const already = await trx.selectFrom('processor.x402_submissions').select('id').where('authorization_id', '=', authorization.id).executeTakeFirst();
      if (claim.state !== 'verified' || already) return undefined;
      // The payment still takes money, and long enough for the deposit to be on time: paid another way meanwhile, the buyer would pay twice.
      const payment = await trx.selectFrom('payments').select(['status', 'expires_at']).where('id', '=', authorization.payment_id).executeTakeFirst();
      if (!payment || (payment.status !== 'open' && payment.status !== 'pending') || payment.expires_at.getTime() <= now.getTime() + EXPIRY_MARGIN_MS) return 'closed' as const;
      // A deposit to the address not final yet (another payment's money, or this authorization
      // carried by someone else): it waits for that deposit's finality, and is run again then.
      const arriving = await trx.selectFrom('processor.unfinal_deposits').select('tx_hash').where('network', '=', this.network.name).where('to_address', '=', authorization.pay_to).limit(1).executeTakeFirst();
      if (arriving) return undefined;
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
   * Why the chain refused the call at block `head`, as the protocol names it (the official
   * facilitator's reasons), by the chain's own state and clock at that block; or the transaction
   * that carried it already (the payer, or anyone holding it, submitted it first): that is no
   * refusal. `unknown` while final blocks cannot tell yet.
   */
  async #diagnose(authorization: Waiting, token: Address, words: string, head: bigint): Promise<Fate> {
    const { chain } = this.#deps;
    const said = `The token refused the transfer: ${words}.`;
    const [payer, nonce] = [authorization.payer as Address, authorization.nonce as Hex];
    if (/used or canceled/i.test(words) || await chain.authorizationUsed(token, payer, nonce, head)) return this.#usedBefore(authorization, token);
    if (await chain.tokenBalance(token, payer, head) < BigInt(authorization.value)) {
      return new Refused('invalid_exact_evm_insufficient_balance', 'The payer\'s wallet does not hold the amount.');
    }
    // The window as the chain reads it: the block's time, and the time the next block takes.
    const block = await chain.client.getBlock({ blockNumber: head });
    if (BigInt(authorization.valid_before) <= block.timestamp + 2n || /expired/i.test(words)) {
      return new Refused('invalid_exact_evm_payload_authorization_valid_before', 'The authorization expires before the chain can take it.');
    }
    if (BigInt(authorization.valid_after) >= block.timestamp || /not yet valid/i.test(words)) {
      return new Refused('invalid_exact_evm_payload_authorization_valid_after', 'The authorization is not valid yet by the chain\'s clock.');
    }
    if (/signature|signer/i.test(words)) return new Refused('invalid_exact_evm_signature', said);
    return new Refused('invalid_exact_evm_transaction_simulation_failed', said);
  }

  /**
   * An authorization used before the processor signed anything, judged by final blocks only: the
   * transaction that carried it to the deposit address, a cancel, or its nonce used for another
   * transfer. Not found in the last LOOKBACK_BLOCKS final blocks, it is refused only with proof:
   * the window closed by a final block, and detection, having scanned past that block, saw no
   * Transfer from the payer of the amount to the deposit address (a use of this authorization
   * would be one). Else it waits (`unknown`).
   */
  async #usedBefore(authorization: Waiting, token: Address): Promise<Fate> {
    const { chain, db } = this.#deps;
    const authorized: Authorized = { token, payer: authorization.payer, pay_to: authorization.pay_to, value: authorization.value, authorization_nonce: authorization.nonce };
    const final = await chain.finalBlock();
    const fate = await this.#use(authorized, final.number > LOOKBACK_BLOCKS ? final.number - LOOKBACK_BLOCKS : 0n, final.number, []);
    if (fate !== undefined) return fate;
    if (BigInt(authorization.valid_before) > final.timestamp) return 'unknown';
    const [cursor, transfer] = await Promise.all([
      db.selectFrom('processor.cursors').select('next_block').where('network', '=', this.network.name).executeTakeFirst(),
      db.selectFrom('processor.transfers').select('tx_hash').where('network', '=', this.network.name).where('token', '=', token)
        .where('to_address', '=', authorization.pay_to).where('from_address', '=', authorization.payer).where('value', '=', authorization.value)
        .where('status', '<>', 'removed').limit(1).executeTakeFirst(),
    ]);
    if (transfer || !cursor || BigInt(cursor.next_block) <= final.number) return 'unknown';
    return new Refused('invalid_exact_evm_nonce_already_used', 'The payer\'s authorization nonce was used, by no transfer to this payment: nothing reached it.');
  }

  /**
   * A used authorization, read in blocks `from`..`to` (final ones): the transaction that used it,
   * when its receipt shows the buyer's Transfer to the deposit address; refused when the payer
   * canceled it, or its nonce moved money elsewhere; undefined when no use is there; `unknown`
   * when its receipt cannot be read, or the use was `own` (the processor's own transaction: its
   * receipt decides).
   */
  async #use(authorized: Authorized, from: bigint, to: bigint, own: string[]): Promise<Fate | undefined> {
    const { chain } = this.#deps;
    const end = await chain.authorizationEnd(authorized.token as Address, authorized.payer as Address, authorized.authorization_nonce as Hex, from, to);
    if (!end) return undefined;
    const hash = end.hash.toLowerCase();
    if (end.kind === 'canceled') return new Refused('invalid_exact_evm_nonce_already_used', 'The payer canceled the authorization on the chain (cancelAuthorization): nothing moved.');
    if (own.includes(hash)) return 'unknown';
    const receipt = await chain.receipt(end.hash);
    if (!receipt) return 'unknown';
    const logIndex = receipt.status === 'success' ? this.#transferLog(receipt, authorized) : undefined;
    if (logIndex !== undefined) return { receipt, logIndex };
    return new Refused('invalid_exact_evm_nonce_already_used', `The payer's authorization nonce was used by ${hash}, which moved nothing to this payment.`);
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
    // Ours mined and moved nothing (its nonce is spent), or unmined while no block to come can take it.
    if (own || (!signedNow && await this.#wontCarry(row))) return this.#closeWith(row, own);
    if (row.state === 'mined') this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} left the chain in a reorganisation; broadcasting it again`);
    const since = row.broadcast_at ?? row.created_at;
    if (row.state !== 'mined' && clock.now().getTime() - since.getTime() >= this.#options.replaceAfterMs) row = await this.#replace(row);
    const sent = await chain.broadcast(row.raw as Hex);
    if (!sent.ok && sent.refusal === 'nonce_used') {
      // Its nonce is spent: by its own transaction, mined since the receipts were read (the next
      // pass reads it), or by one not the processor's: closing finds out which, by final blocks.
      if (await this.#ownReceipt(row)) return;
      return this.#closeWith(row, undefined);
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
          .where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).where('state', 'in', CARRYING).returningAll().executeTakeFirst();
        if (next && row.state === 'signed') await enqueueNotice(trx, this.#notice('x402.submitted', next.authorization_id, next, { txid: next.tx_hash! }), now);
        return next;
      });
      if (broadcast && row.state === 'signed') await this.#step('broadcast', broadcast);
    }
  }

  /**
   * Whether no block to come can take the processor's unmined transaction, as of the latest block:
   * the authorization used (by another), or its window closed by the chain's clock. The state is
   * read at that block, so a block carrying ours by then shows it used (then its receipt decides).
   */
  async #wontCarry(row: SubmissionRow): Promise<boolean> {
    const { chain } = this.#deps;
    const latest = await chain.client.getBlock({ blockTag: 'latest' });
    if (BigInt(row.valid_before) <= latest.timestamp) return true;
    return chain.authorizationUsed(row.token as Address, row.payer as Address, row.authorization_nonce as Hex, latest.number);
  }

  /**
   * What became of the authorization, by final blocks only (nothing told can be taken back by a
   * reorganisation): carried by a transaction not the processor's, refused (canceled, used for
   * another transfer, or its window closed unused), `unknown` (used, its use not found yet), or
   * undefined (still open). Uses are read from the token's logs in final blocks; "unused" from its
   * state at the latest block, at or after the final one (a used authorization stays used), so no
   * node needs old state.
   */
  async #finalFate(row: SubmissionRow): Promise<Fate | undefined> {
    const { chain } = this.#deps;
    const final = await chain.finalBlock();
    // Unused when it was simulated, at signed_block: its use is after (the margin covers nodes apart).
    const signed = BigInt(row.signed_block ?? 0);
    const fate = await this.#use(row, signed > LOOKBACK_BLOCKS ? signed - LOOKBACK_BLOCKS : 0n, final.number, [row.tx_hash!, ...row.replaced_hashes]);
    if (fate !== undefined) return fate;
    if (BigInt(row.valid_before) > final.timestamp) return undefined;
    const latest = await chain.client.getBlock({ blockTag: 'latest' });
    if (latest.number < final.number) return 'unknown';
    // Used by now, yet by no final block: it cannot be (the window closed by the final block); a node behind on logs.
    if (await chain.authorizationUsed(row.token as Address, row.payer as Address, row.authorization_nonce as Hex, latest.number)) return 'unknown';
    return new Refused('invalid_exact_evm_payload_authorization_valid_before', 'The authorization expired before a block took it: nothing moved.');
  }

  /** The processor's own transaction will not carry the authorization: the submission is closing, its fate decided by final blocks. */
  async #closeWith(row: SubmissionRow, own: TransactionReceipt | undefined): Promise<void> {
    const now = this.#deps.clock.now();
    const closing = await this.#deps.db.updateTable('processor.x402_submissions').set({ state: 'closing', updated_at: now })
      .where('id', '=', row.id).where('state', 'in', CARRYING).returningAll().executeTakeFirst();
    if (!closing) return;
    this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} will not carry x402 authorization ${row.authorization_id}${own ? ' (mined, it moved nothing)' : ''}; closing`);
    await this.#close(closing, own);
  }

  /**
   * A closing submission. Its fate, once final blocks decide it: refused (told to the service
   * now) or carried by another's transaction (detection pays the payment by its deposit). Its
   * nonce: spent by its own transaction (final: the gas reported for the books), else by a 0-value
   * transfer to the gas wallet itself, stored before it is broadcast, as any replacement. Both
   * done, it ends.
   */
  async #close(row: SubmissionRow, own: TransactionReceipt | undefined): Promise<void> {
    const { chain, clock } = this.#deps;
    const moved = own?.status === 'success' ? this.#transferLog(own, row) : undefined;
    // Ours carried it after all (mined as the closing began, or again after a reorganisation): nothing was told.
    if (own && moved !== undefined && row.reason === null) return this.#mined(row, own, moved);
    if (row.reason === null && row.carried_by === null) {
      try {
        row = await this.#decide(row, await this.#finalFate(row), own);
      } catch (error) {
        // The verdict waits for the next pass; the nonce below does not wait for it.
        if (error instanceof StepStopped) throw error;
        this.#options.log(`[processor] ${this.network.name}: x402 submission ${row.id}'s outcome waits: ${publicText(error)}`);
      }
    }
    const decided = row.reason !== null || row.carried_by !== null;
    if (own) {
      if (decided && await isFinalReceipt(chain, own)) await this.#end(row, own);
      return;
    }
    const due = clock.now().getTime() - (row.broadcast_at ?? row.created_at).getTime() >= this.#options.replaceAfterMs;
    if (!this.#isSelfTransfer(row)) row = await this.#replace(row, { to: row.sender as Address, data: '0x', gas: SELF_TRANSFER_GAS });
    else if (due) row = await this.#replace(row);
    const sent = await chain.broadcast(row.raw as Hex);
    if (!sent.ok && sent.refusal === 'nonce_used') {
      // Spent, yet none of ours is mined: by a transaction not the processor's (another holder of
      // the gas wallet's key), once a final block says so and still none of ours is there.
      if (decided && await this.#spentElsewhere(row)) await this.#end(row, undefined);
      return;
    }
    if (!sent.ok && sent.refusal !== 'known') this.#options.log(`[processor] ${this.network.name}: ${row.tx_hash} (nonce ${row.nonce}) not taken (${sent.message}); tried again`);
    else if (row.broadcast_at === null) {
      await this.#deps.db.updateTable('processor.x402_submissions').set({ broadcast_at: clock.now(), updated_at: clock.now() })
        .where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).where('state', '=', 'closing').execute();
    }
  }

  /**
   * The nonce spent by a transaction not the processor's: so a final block says, none of ours
   * has a receipt, and for long enough that a node behind cannot be why.
   */
  async #spentElsewhere(row: SubmissionRow): Promise<boolean> {
    const { chain, clock } = this.#deps;
    if (clock.now().getTime() - row.created_at.getTime() < SPENT_ELSEWHERE_AFTER_MS) return false;
    const final = await chain.finalBlock();
    const spent = await chain.client.getTransactionCount({ address: row.sender as Address, blockNumber: final.number });
    return spent > Number(row.nonce) && await this.#ownReceipt(row) === undefined;
  }

  /** Writes the fate down when final blocks decided it; a refusal is told to the service in the same transaction. */
  async #decide(row: SubmissionRow, fate: Fate | undefined, own: TransactionReceipt | undefined): Promise<SubmissionRow> {
    if (fate === undefined || fate === 'unknown') return row;
    const { db, clock } = this.#deps;
    const now = clock.now();
    // The processor's own call mined and moving nothing is what the buyer is told of, when its window then closed unused.
    const ownCall = own && own.to?.toLowerCase() === row.token ? own.transactionHash.toLowerCase() : undefined;
    const refusal = fate instanceof Refused && ownCall && fate.reason === 'invalid_exact_evm_payload_authorization_valid_before'
      ? new Refused('invalid_exact_evm_transaction_failed', `${ownCall} moved nothing (the token refused the transfer when it was mined), and the authorization expired unused.`)
      : fate;
    const values = refusal instanceof Refused
      ? { reason: refusal.reason, failure: publicText(refusal.message, 500) }
      : { carried_by: refusal.receipt.transactionHash.toLowerCase(), block_number: refusal.receipt.blockNumber, block_hash: refusal.receipt.blockHash.toLowerCase(), transfer_log_index: refusal.logIndex };
    const decided = await db.transaction().execute(async (trx) => {
      const next = await trx.updateTable('processor.x402_submissions').set({ ...values, updated_at: now })
        .where('id', '=', row.id).where('state', '=', 'closing').where('reason', 'is', null).where('carried_by', 'is', null).returningAll().executeTakeFirst();
      if (next && refusal instanceof Refused) {
        await enqueueNotice(trx, this.#notice('x402.refused', next.authorization_id, next, { reason: refusal.reason, message: publicText(refusal.message, 500), ...(ownCall ? { txid: ownCall } : {}) }), now);
      }
      return next;
    });
    if (!decided) return row;
    this.#options.log(refusal instanceof Refused
      ? `[processor] ${this.network.name}: x402 submission ${row.id} refused (${refusal.reason}): ${refusal.message}`
      : `[processor] ${this.network.name}: x402 authorization ${row.authorization_id} was carried by ${decided.carried_by}, not the processor's transaction`);
    return decided;
  }

  #isSelfTransfer(row: SubmissionRow): boolean {
    return parseTransaction(row.raw as Hex).to?.toLowerCase() === row.sender;
  }

  /** Closed: `final` (carried) or `failed` (refused), with the gas the processor's mined transaction cost, reported for the books. */
  async #end(row: SubmissionRow, own: TransactionReceipt | undefined): Promise<void> {
    const { db, clock } = this.#deps;
    const end = row.carried_by ? 'final' as const : 'failed' as const;
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
      from: row.sender!, to: receipt.to?.toLowerCase() ?? row.token, token: null, value: (receipt.gasUsed * receipt.effectiveGasPrice).toString(), decimals: 18,
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
      // Never over a refusal told: one authorization is refused or carried, not both.
      const next = await trx.updateTable('processor.x402_submissions').set(values).where('id', '=', row.id).where('state', 'in', OPEN).where('reason', 'is', null).returningAll().executeTakeFirst();
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

  /** Not replaced now: the next replacement is due a full interval later (not on every pass). */
  async #postpone(row: SubmissionRow): Promise<SubmissionRow> {
    const now = this.#deps.clock.now();
    return await this.#deps.db.updateTable('processor.x402_submissions').set({ broadcast_at: now, updated_at: now })
      .where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).where('state', 'in', OPEN).returningAll().executeTakeFirst() ?? row;
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
    if (!call && BigInt(row.max_fee_per_gas!) >= now.maxFeePerGas * FEE_CEILING_TIMES) return this.#postpone(row);
    const bump = (old: string, current: bigint) => {
      const raised = BigInt(old) * BUMP_PERCENT / 100n + 1n;
      return raised > current ? raised : current;
    };
    const fees: Fees = { type: 'eip1559', maxFeePerGas: bump(row.max_fee_per_gas!, now.maxFeePerGas), maxPriorityFeePerGas: bump(row.max_priority_fee_per_gas!, now.maxPriorityFeePerGas) };
    const stored = parseTransaction(row.raw as Hex);
    const next = call ?? { to: stored.to as Address, data: stored.data ?? '0x', gas: BigInt(row.gas!) };
    if (await chain.balance(keys.gasWallet.address) < next.gas * feeCap(fees)) {
      this.#options.log(`[processor] ${this.network.name}: the gas wallet ${row.sender} cannot pay to replace ${row.tx_hash}: fund it`);
      return this.#postpone(row);
    }
    const { raw, hash } = await sign(this.network.chainId, Number(row.nonce), { signer: keys.gasWallet, ...next, value: 0n, fees });
    const replaced = await db.updateTable('processor.x402_submissions').set({
      raw, tx_hash: hash, replaced_hashes: [...row.replaced_hashes, row.tx_hash!], gas: next.gas, max_fee_per_gas: fees.maxFeePerGas.toString(),
      max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(), broadcast_at: clock.now(), updated_at: clock.now(),
    }).where('id', '=', row.id).where('tx_hash', '=', row.tx_hash).where('state', 'in', OPEN).returningAll().executeTakeFirst();
    // Moved on meanwhile (a second processor): this signature is dropped, never broadcast.
    if (!replaced) throw new Error(`x402 submission ${row.id} moved on while it was replaced`);
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
