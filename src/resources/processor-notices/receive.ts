import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import { unixSeconds } from '../../core/clock.ts';
import { parseOrThrow, coded } from '../../core/validation.ts';
import type { Db } from '../../db/database.ts';
import { applyArrival } from '../payments/arrival.ts';
import { applyMove } from '../payments/machine.ts';
import { findProvider } from '../providers/catalogue.ts';
import { verifySignature } from '../../webhooks/signature.ts';
import { NETWORK_COINS, NETWORK_NAMES } from '../../core/networks-config.ts';
import { recordNetworkStatus, type NetworkStatus as StoredStatus } from '../networks/served.ts';
import { ForwardingStatus, forwardingReportOf } from './forwarding-report.ts';
import { alertOperator } from './operator-alerts.ts';

// Signed notices from the payment processor about Live money (issue 3, "Live money"): a deposit
// confirmed at a payment's deposit address, and later its settlement to the merchant; and the
// processor's status per network (processor.status), which decides what Live starts offer.
// Every money notice is recorded, applied or not; unsigned, stale or mismatched ones change nothing.
// Transaction ids and addresses are hex, whose letter case the chain ignores: they are
// lowercased as they are read, so every comparison and everything stored is in one case.

const coin = z.string().regex(/^\d{1,12}(\.\d{1,6})?$/);
const invalid = (message: string) => coded('invalid_request', message);

const MoneyNotice = z.object({
  id: z.string(invalid('id must be a string.')).min(1).max(200),
  type: z.enum(['deposit.confirmed', 'settlement.completed'], invalid('type must be deposit.confirmed or settlement.completed.')),
  deposit_address: z.string(invalid('deposit_address must be a string.')).min(1).max(100).toLowerCase(),
  payment_id: z.string().max(100).nullish(),
  coin: z.string(invalid('coin must be a string.')).min(1).max(40).optional(),
  network: z.string().min(1).max(40).optional(),
  amount: coin.optional(),
  txid: z.string().min(1).max(200).toLowerCase().optional(),
  forwarded_to: z.string().max(100).toLowerCase().nullish(),
  txid_out: z.string().max(200).toLowerCase().nullish(),
  merchant_received: coin.nullish(),
  provider: z.string().max(40).nullish(),
});

// processor.status (issue 22, must-have 7): what the processor watches and how it is doing, per
// network, every ~15 s. Block numbers are decimal strings (a chain's height outgrows no number
// below 2^53, which is what they are read into), null before the network's first scan.
const block = z.string(invalid('block numbers must be decimal strings or null.')).regex(/^(0|[1-9]\d{0,15})$/, invalid('block numbers must be decimal strings or null.'))
  .transform(Number).refine(Number.isSafeInteger, invalid('block numbers must be below 2^53.')).nullable();

const NetworkStatus = z.object({
  network: z.enum(NETWORK_NAMES, invalid(`network must be one of ${NETWORK_NAMES.join(', ')}.`)),
  chain_id: z.number(invalid('chain_id must be a number.')).int().min(1).max(Number.MAX_SAFE_INTEGER),
  coins: z.array(z.string(invalid('coins must be coin names.')).max(40)).max(10),
  healthy: z.boolean(invalid('healthy must be true or false.')),
  head_block: block,
  final_block: block,
  cursor_block: block,
  // An RPC node's error can be long: kept to its first 300 characters rather than refusing the report.
  problem: z.string(invalid('problem must be a sentence or null.')).max(5000).transform((text) => text.slice(0, 300)).nullable(),
  // Added by issue 30: absent from a processor that does not say (stored as unknown).
  forwarding: ForwardingStatus.optional(),
}).superRefine((status, context) => {
  const allowed: readonly string[] = NETWORK_COINS[status.network];
  const stray = status.coins.find((coin) => !allowed.includes(coin));
  if (stray !== undefined) context.addIssue({ code: 'custom', path: ['coins'], message: `invalid_request :: ${stray} is not a coin of ${status.network} (${allowed.join(', ')}).` });
  if (new Set(status.coins).size !== status.coins.length) context.addIssue({ code: 'custom', path: ['coins'], message: 'invalid_request :: coins names a coin twice.' });
});

const StatusNotice = z.object({
  id: z.string(invalid('id must be a string.')).min(1).max(200),
  type: z.literal('processor.status'),
  sent_at: z.number(invalid('sent_at must be Unix seconds.')).int().min(1).max(Number.MAX_SAFE_INTEGER),
  networks: z.array(NetworkStatus).min(1).max(NETWORK_NAMES.length).refine((networks) => new Set(networks.map((status) => status.network)).size === networks.length, invalid('networks names a network twice.')),
});

export const ProcessorNotice = z.discriminatedUnion('type', [MoneyNotice, StatusNotice], {
  error: (issue) => (issue.code === 'invalid_union' ? invalid('type must be deposit.confirmed, settlement.completed or processor.status.').error : undefined),
});
export type ProcessorNotice = z.output<typeof ProcessorNotice>;
type MoneyNotice = z.output<typeof MoneyNotice>;
type StatusNotice = z.output<typeof StatusNotice>;

export type NoticeOutcome = { outcome: 'applied' | 'duplicate' | 'rejected'; reason: string | null; paymentId: string | null };

type Deps = Pick<AppContext, 'db' | 'clock' | 'config' | 'jobs' | 'processorSecret' | 'paymentMails'>;

/**
 * Records a notice. Only a verified one keeps its body; a refused one keeps a digest and its
 * length, so what anyone may post costs the database a small row.
 */
async function record(db: Db, now: Date, raw: string, verified: boolean, notice: { id?: string; type?: string }, result: NoticeOutcome): Promise<NoticeOutcome> {
  await db.insertInto('processor_notices').values({
    notice_id: verified ? notice.id ?? null : null, kind: verified ? notice.type ?? null : null, payment_id: result.paymentId,
    outcome: result.outcome, reason: result.reason, received_at: now,
    body: verified && !raw.includes('\u0000') ? raw : null,
    body_sha256: createHash('sha256').update(raw).digest('hex'),
    body_length: Buffer.byteLength(raw),
  }).execute();
  return result;
}

async function apply(trx: Db, deps: Deps, notice: MoneyNotice): Promise<NoticeOutcome> {
  const rejected = (reason: string, paymentId: string | null = null): NoticeOutcome => ({ outcome: 'rejected', reason, paymentId });
  const payment = await trx.selectFrom('payments').selectAll().where(sql`lower(deposit_address)`, '=', notice.deposit_address)
    .where('deposit_address', 'is not', null).where('livemode', '=', true).forUpdate().executeTakeFirst();
  if (!payment) return rejected('No Live payment has this deposit address.');
  if (notice.payment_id && notice.payment_id !== payment.id) return rejected(`The deposit address belongs to ${payment.id}, not ${notice.payment_id}.`, payment.id);

  if (notice.type === 'deposit.confirmed') {
    if (!notice.coin || !notice.network || !notice.amount || !notice.txid || !notice.forwarded_to) {
      return rejected('A deposit needs coin, network, amount, txid and forwarded_to (the wallet it is forwarded to).', payment.id);
    }
    const provider = notice.provider ? findProvider(notice.provider) : undefined;
    const outcome = await applyArrival(trx, deps, payment, {
      valueCoin: notice.amount, coin: notice.coin, network: notice.network, txidIn: notice.txid,
      forwardedTo: notice.forwarded_to ?? null, txidOut: notice.txid_out ?? null, merchantReceived: notice.merchant_received ?? null,
      provider: provider ? { id: provider.id, name: provider.name } : null,
    });
    return outcome.move === 'none' ? rejected(outcome.reason, payment.id) : { outcome: 'applied', reason: outcome.move === 'hold' ? outcome.payment.hold_reason : null, paymentId: payment.id };
  }
  if (!notice.txid_out || !notice.merchant_received) return rejected('A settlement needs txid_out and merchant_received.', payment.id);
  if (payment.txid_out !== null) return { outcome: 'duplicate', reason: 'The settlement is already recorded.', paymentId: payment.id };
  if (payment.status === 'paid' && payment.hold_reason !== null) {
    return rejected('The payment was accepted from a hold; its settlement details are not recorded.', payment.id);
  }
  const settled = await applyMove(trx, deps, payment.id, 'settle', { set: { txid_out: notice.txid_out, merchant_received: notice.merchant_received } });
  return settled ? { outcome: 'applied', reason: null, paymentId: payment.id } : rejected(`A settlement applies to a paid payment; this one is ${payment.status}.`, payment.id);
}

/** How far ahead of the service's clock a status may say it was sent (the signature's own tolerance). */
const STATUS_AHEAD_SECONDS = 300;

/**
 * A status report replaces each network's stored one unless that is newer. Accepted reports are
 * not kept in processor_notices (one arrives every ~15 s); refused ones are, as any notice.
 */
async function receiveStatus(deps: Deps, now: Date, rawBody: string, notice: StatusNotice): Promise<NoticeOutcome> {
  const fresh = deps.config.processorStatusFreshSeconds;
  const age = unixSeconds(now) - notice.sent_at;
  const refused = age > fresh ? `It was sent ${age} s ago, older than PROCESSOR_STATUS_FRESH_SECONDS (${fresh} s).`
    : age < -STATUS_AHEAD_SECONDS ? `Its sent_at is ${-age} s ahead of the service's clock.` : null;
  if (refused !== null) {
    await record(deps.db, now, rawBody, true, notice, { outcome: 'rejected', reason: refused, paymentId: null });
    throw new ApiError('invalid_request', `The status is refused: ${refused}`, 'sent_at');
  }
  const networks: StoredStatus[] = notice.networks.map((status) => ({
    network: status.network, chainId: status.chain_id, coins: status.coins, healthy: status.healthy,
    headBlock: status.head_block, finalBlock: status.final_block, cursorBlock: status.cursor_block, problem: status.problem,
    forwarding: status.forwarding === undefined ? undefined : forwardingReportOf(status.forwarding),
  }));
  const changed = await recordNetworkStatus(deps.db, { id: notice.id, sentAt: new Date(notice.sent_at * 1000), receivedAt: now, networks });
  await alertOperator(deps, networks.filter((status) => changed.includes(status.network)));
  return changed.length === notice.networks.length
    ? { outcome: 'applied', reason: null, paymentId: null }
    : { outcome: changed.length === 0 ? 'duplicate' : 'applied', reason: 'A newer status of some networks was already recorded; those are kept.', paymentId: null };
}

/** Verifies, records and applies one notice (its raw body and signature header). */
export async function receiveProcessorNotice(deps: Deps, rawBody: string, signature: string | undefined): Promise<NoticeOutcome> {
  const now = deps.clock.now();
  const verification = verifySignature(signature, deps.processorSecret, rawBody, unixSeconds(now));
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    parsed = undefined;
  }
  if (!verification.ok) {
    await record(deps.db, now, rawBody, false, {}, { outcome: 'rejected', reason: verification.reason, paymentId: null });
    throw new ApiError('invalid_signature', `The notice is not signed correctly: ${verification.reason}.`);
  }
  if (parsed === undefined || /\\u0000/i.test(rawBody)) {
    await record(deps.db, now, rawBody, true, {}, { outcome: 'rejected', reason: 'body is not JSON without NUL characters', paymentId: null });
    throw new ApiError('invalid_json', 'The notice is not valid JSON.');
  }
  let notice: ProcessorNotice;
  try {
    notice = parseOrThrow(ProcessorNotice, parsed);
  } catch (error) {
    await record(deps.db, now, rawBody, true, {}, { outcome: 'rejected', reason: error instanceof Error ? error.message : 'invalid notice', paymentId: null });
    throw error;
  }
  if (notice.type === 'processor.status') return receiveStatus(deps, now, rawBody, notice);
  return deps.db.transaction().execute(async (trx) => {
    const seen = await trx.selectFrom('processor_notices').select('payment_id')
      .where('notice_id', '=', notice.id).where('outcome', '=', 'applied').executeTakeFirst();
    if (seen) return record(trx, now, rawBody, true, notice, { outcome: 'duplicate', reason: 'This notice was already applied.', paymentId: seen.payment_id });
    return record(trx, now, rawBody, true, notice, await apply(trx, deps, notice));
  });
}
