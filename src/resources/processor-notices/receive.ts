import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../verbs/context.ts';
import { ApiError } from '../../core/errors.ts';
import { unixSeconds } from '../../core/clock.ts';
import { parseOrThrow, coded } from '../../core/validation.ts';
import type { Db } from '../../db/database.ts';
import { applyMoneyNotice, MoneyNotice, type NoticeOutcome } from './money.ts';
import { verifySignature } from '../../webhooks/signature.ts';
import { NETWORK_COINS, NETWORK_NAMES } from '../../core/networks-config.ts';
import { recordNetworkStatus, type NetworkStatus as StoredStatus } from '../networks/served.ts';
import { publicText, withoutUrlSecrets } from '../../core/public-text.ts';
import { ForwardingStatus, forwardingReportOf } from './forwarding-report.ts';
import { alertOperator } from './operator-alerts.ts';
import { applyX402Notice, X402Notice } from './x402.ts';

// Signed notices from the payment processor about Live money (issue 3, "Live money"): a deposit
// confirmed at a payment's deposit address, and later its settlement to the merchant; and the
// processor's status per network (processor.status), which decides what Live starts offer.
// Every money notice is recorded, applied or not; unsigned, stale or mismatched ones change nothing.
// Transaction ids and addresses are hex, whose letter case the chain ignores: they are
// lowercased as they are read, so every comparison and everything stored is in one case.

const invalid = (message: string) => coded('invalid_request', message);

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
  // An RPC node's error can be long: kept to its first line and 300 characters rather than refusing the report,
  // and every URL in it cut to its origin (an RPC URL's path often holds its API key), whatever the processor sent.
  problem: z.string(invalid('problem must be a sentence or null.')).max(5000).transform((text) => publicText(text)).nullable(),
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

export const ProcessorNotice = z.discriminatedUnion('type', [MoneyNotice, StatusNotice, X402Notice], {
  error: (issue) => (issue.code === 'invalid_union' ? invalid('type must be deposit.confirmed, settlement.completed, sweep.completed, x402.submitted, x402.refused, x402.final or processor.status.').error : undefined),
});
export type ProcessorNotice = z.output<typeof ProcessorNotice>;
type StatusNotice = z.output<typeof StatusNotice>;

type Deps = Pick<AppContext, 'db' | 'clock' | 'config' | 'jobs' | 'processorSecret' | 'paymentMails' | 'metrics'>;

/**
 * Records a notice whose signature held (a refused signature writes nothing: see
 * receiveProcessorNotice). A body with NUL (which PostgreSQL text refuses) is kept as its digest and length.
 */
async function record(db: Db, now: Date, raw: string, notice: { id?: string; type?: string }, result: NoticeOutcome): Promise<NoticeOutcome> {
  await db.insertInto('processor_notices').values({
    notice_id: notice.id ?? null, kind: notice.type ?? null, payment_id: result.paymentId,
    outcome: result.outcome, reason: result.reason, received_at: now,
    // URLs cut to their origin, as in every processor text kept (the digest and length are of what came).
    body: raw.includes('\u0000') ? null : withoutUrlSecrets(raw),
    body_sha256: createHash('sha256').update(raw).digest('hex'),
    body_length: Buffer.byteLength(raw),
  }).execute();
  return result;
}

const BODY_NOT_JSON = 'body is not JSON without NUL characters';

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
    await record(deps.db, now, rawBody, notice, { outcome: 'rejected', reason: refused, paymentId: null });
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

const isX402 = (notice: MoneyNotice | X402Notice): notice is X402Notice => notice.type.startsWith('x402.');

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
  // Anyone may post here: a refused signature is counted (a metric, and the route's per-address
  // limit), never written, so forged notices cost the database nothing (issue 30, must have 7).
  if (!verification.ok) {
    deps.metrics.noticeRefused(verification.refusal);
    throw new ApiError('invalid_signature', `The notice is not signed correctly: ${verification.reason}.`);
  }
  if (parsed === undefined || /\\u0000/i.test(rawBody)) {
    await record(deps.db, now, rawBody, {}, { outcome: 'rejected', reason: BODY_NOT_JSON, paymentId: null });
    throw new ApiError('invalid_json', 'The notice is not valid JSON.');
  }
  let notice: ProcessorNotice;
  try {
    notice = parseOrThrow(ProcessorNotice, parsed);
  } catch (error) {
    await record(deps.db, now, rawBody, {}, { outcome: 'rejected', reason: error instanceof Error ? error.message : 'invalid notice', paymentId: null });
    throw error;
  }
  if (notice.type === 'processor.status') return receiveStatus(deps, now, rawBody, notice);
  const applying = notice;
  return deps.db.transaction().execute(async (trx) => {
    const seen = await trx.selectFrom('processor_notices').select('payment_id')
      .where('notice_id', '=', notice.id).where('outcome', '=', 'applied').executeTakeFirst();
    if (seen) return record(trx, now, rawBody, notice, { outcome: 'duplicate', reason: 'This notice was already applied.', paymentId: seen.payment_id });
    const outcome = isX402(applying) ? await applyX402Notice(trx, now, applying) : await applyMoneyNotice(trx, deps, applying);
    return record(trx, now, rawBody, notice, outcome);
  });
}
