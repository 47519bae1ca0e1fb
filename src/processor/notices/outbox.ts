import { sql } from 'kysely';
import { MINUTE, SECOND, unixSeconds, type Clock } from '../../core/clock.ts';
import type { NetworkConfig } from '../../core/networks-config.ts';
import type { Db } from '../../db/database.ts';
import type { OutgoingNoticeKind } from '../../db/schema.ts';
import { signatureHeader } from '../../webhooks/signature.ts';
import { publicText } from '../../core/public-text.ts';

// The processor's notices to the service (issue 22, must have 5), delivered at least once. A
// notice is a row of processor.notices_out, written in the same transaction as what it reports
// (a final transfer, a final forward), under an id derived from that fact, so a crash or a second
// processor never makes two notices of one fact, and the service's own dedup by id makes a
// redelivery harmless. The sender posts it signed with PROCESSOR_SECRET, exactly as the service
// checks (spec 6.4's scheme, the Processor-Signature header), and retries with a growing wait.

/** A notice body as src/resources/processor-notices/receive.ts parses it. */
export interface OutgoingNotice {
  id: string;
  type: OutgoingNoticeKind;
  deposit_address: string;
  payment_id?: string | null;
  coin?: string;
  network?: string;
  amount?: string;
  txid?: string;
  forwarded_to?: string | null;
  txid_out?: string | null;
  merchant_received?: string | null;
  // The books (issue 30): a deposit as the chain identifies it ...
  log_index?: number;
  block_number?: number;
  from_address?: string;
  token?: string;
  /** Base units, a decimal string. */
  value?: string;
  decimals?: number;
  // ... and what a forward moved.
  transfer_txid?: string;
  transfer_log_index?: number;
  movements?: OutgoingMovement[];
  // A buyer's x402 authorization the processor submitted or refused (issue 33).
  authorization_id?: string;
  /** The protocol's error reason of a refusal, and its words. */
  reason?: string;
  message?: string;
}

/** One movement a settlement reports, as src/resources/processor-notices/money.ts reads it. */
export interface OutgoingMovement {
  kind: 'forward_net' | 'forward_fee' | 'gas_top_up' | 'sweep' | 'x402_gas';
  txid: string;
  log_index: number | null;
  block_number: number | null;
  from: string;
  to: string;
  /** Null for the network's native coin. */
  token: string | null;
  /** Base units, a decimal string. */
  value: string;
  decimals: number;
}

/** A claimed notice is not offered to another sender for this long (a sender that died mid-post). */
const LEASE_MS = MINUTE;
/** The longest wait between two attempts. */
const MAX_BACKOFF_MS = 10 * MINUTE;
const TIMEOUT_MS = 10 * SECOND;

/** Waits before attempt n + 1: 1 s, 2 s, 4 s, … up to 10 minutes. */
export function backoffMs(attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, SECOND * 2 ** Math.min(attempts, 20));
}

/** Enqueues a notice once: a second enqueue of the same id changes nothing. Call it in the transaction that records the fact. */
export async function enqueueNotice(db: Db, notice: OutgoingNotice, now: Date): Promise<void> {
  await db.insertInto('processor.notices_out')
    .values({ id: notice.id, kind: notice.type, body: JSON.stringify(notice), next_attempt_at: now, created_at: now })
    .onConflict((oc) => oc.column('id').doNothing()).execute();
}

/** Base units of a six-decimal dollar coin as the notice writes them: "30.000000". */
export function sixDecimals(value: bigint): string {
  const whole = value / 1_000_000n;
  const fraction = (value % 1_000_000n).toString().padStart(6, '0');
  return `${whole}.${fraction}`;
}

/**
 * A deposit's value in its coin as the notice writes it (six decimals), from the token's own
 * decimals as the configuration check read them; refuses a value it cannot write exactly.
 */
export function coinAmount(value: bigint, decimals: number): string {
  if (decimals <= 6) return sixDecimals(value * 10n ** BigInt(6 - decimals));
  const scale = 10n ** BigInt(decimals - 6);
  if (value % scale !== 0n) throw new Error(`${value} in ${decimals} decimals has more than six`);
  return sixDecimals(value / scale);
}

/**
 * Enqueues `deposit.confirmed` for each final transfer that has none yet, naming the wallet it is
 * forwarded to (the payout wallet fixed at the payment's start). Every configured token is
 * reported under its own coin, also one the payment did not ask for: the service's checks hold it.
 * Answers how many were enqueued.
 */
export async function confirmFinalTransfers(db: Db, clock: Clock, network: NetworkConfig, limit = 500): Promise<number> {
  // Credited in each token's decimals read from the chain: a token not checked yet is not credited yet.
  const coins = new Map(network.tokens.filter((token) => token.decimals !== undefined).map((token) => [token.address, token]));
  return db.transaction().execute(async (trx) => {
    const transfers = await trx.selectFrom('processor.transfers as t')
      .innerJoin('processor.watched_addresses as w', 'w.address', 't.to_address')
      .select(['t.tx_hash', 't.log_index', 't.block_number', 't.token', 't.from_address', 't.to_address', 't.value', 'w.payment_id', 'w.payout_wallet'])
      .where('t.network', '=', network.name).where('t.status', '=', 'final').where('t.confirmed_notice_id', 'is', null)
      .orderBy('t.block_number').orderBy('t.log_index').limit(limit)
      .forUpdate('t').skipLocked().execute();
    const now = clock.now();
    let enqueued = 0;
    for (const transfer of transfers) {
      const token = coins.get(transfer.token as `0x${string}`);
      // A token no longer configured, or a payment from before payout wallets were carried: said, and left for the operator.
      if (token === undefined || transfer.payout_wallet === null) continue;
      const id = `deposit:${network.name}:${transfer.tx_hash}:${transfer.log_index}`;
      await enqueueNotice(trx, {
        id, type: 'deposit.confirmed', deposit_address: transfer.to_address, payment_id: transfer.payment_id,
        coin: token.coin, network: network.name, amount: coinAmount(BigInt(transfer.value), token.decimals!), txid: transfer.tx_hash,
        forwarded_to: transfer.payout_wallet,
        log_index: transfer.log_index, block_number: Number(transfer.block_number), from_address: transfer.from_address,
        token: transfer.token, value: String(transfer.value), decimals: token.decimals!,
      }, now);
      await trx.updateTable('processor.transfers').set({ confirmed_notice_id: id })
        .where('network', '=', network.name).where('tx_hash', '=', transfer.tx_hash).where('log_index', '=', transfer.log_index).execute();
      enqueued += 1;
    }
    return enqueued;
  });
}

export interface NoticeSender {
  /** Where notices go: the service's POST /processor/notices. */
  url: string;
  secret: string;
}

export type Delivery = { state: 'delivered' | 'refused' | 'pending'; answer: string };

/** Posts one notice body, signed at `now` as the service checks it; answers whether it was taken, refused for good, or is worth another try. */
export async function postNotice(sender: NoticeSender, body: string, now: Date): Promise<Delivery> {
  const signature = signatureHeader([sender.secret], unixSeconds(now), body);
  try {
    const response = await fetch(sender.url, {
      method: 'POST', body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { 'content-type': 'application/json', 'processor-signature': signature },
    });
    // Kept in processor.notices_out and logged: URLs cut to their origin, as every processor text.
    const answer = publicText(`${response.status} ${await response.text()}`, 500);
    if (response.ok) return { state: 'delivered', answer };
    // The service refused this body for good (it will refuse it again); 408, 429 and 5xx are worth another try.
    const final = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
    return { state: final ? 'refused' : 'pending', answer };
  } catch (error) {
    return { state: 'pending', answer: error instanceof Error ? publicText(error, 500) : 'failed' };
  }
}

/**
 * Delivers the notices that are due, each claimed first (a lease, so two senders never post one
 * at the same time and a sender that dies leaves it due again). Answers how many were delivered.
 */
export async function deliverDueNotices(db: Db, clock: Clock, sender: NoticeSender, options: { limit?: number; log?: (line: string) => void } = {}): Promise<number> {
  const now = clock.now();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const claimed = await sql<{ id: string; body: unknown; attempts: number }>`
    UPDATE processor.notices_out SET next_attempt_at = ${leaseUntil}, attempts = attempts + 1
    WHERE id IN (SELECT id FROM processor.notices_out n WHERE state = 'pending' AND next_attempt_at <= ${now}
                   -- A settlement waits for its deposit's notice: the service settles only a payment it saw paid.
                   AND NOT (kind = 'settlement.completed' AND EXISTS (SELECT 1 FROM processor.notices_out d
                     WHERE d.kind = 'deposit.confirmed' AND d.state = 'pending' AND d.body ->> 'deposit_address' = n.body ->> 'deposit_address'))
                 ORDER BY next_attempt_at LIMIT ${options.limit ?? 50} FOR UPDATE SKIP LOCKED)
    RETURNING id, body, attempts`.execute(db);
  const outcomes = await Promise.all(claimed.rows.map(async (row) => {
    const delivery = await postNotice(sender, JSON.stringify(row.body), clock.now());
    const at = clock.now();
    if (delivery.state === 'pending') options.log?.(`[processor] notice ${row.id}: attempt ${row.attempts} failed (${delivery.answer}); retrying`);
    if (delivery.state === 'refused') options.log?.(`[processor] notice ${row.id}: the service refused it: ${delivery.answer}`);
    await db.updateTable('processor.notices_out').set({
      state: delivery.state, last_answer: delivery.answer,
      next_attempt_at: new Date(at.getTime() + backoffMs(row.attempts - 1)),
      delivered_at: delivery.state === 'delivered' ? at : null,
    }).where('id', '=', row.id).execute();
    return delivery.state;
  }));
  return outcomes.filter((state) => state === 'delivered').length;
}

/** Notices not delivered yet, and refused ones, for the status. */
export async function noticesSummary(db: Db): Promise<{ pending: number; refused: number; oldestPendingAt: Date | null }> {
  const row = await db.selectFrom('processor.notices_out')
    .select((eb) => [
      eb.fn.countAll<string>().filterWhere('state', '=', 'pending').as('pending'),
      eb.fn.countAll<string>().filterWhere('state', '=', 'refused').as('refused'),
      eb.fn.min('created_at').filterWhere('state', '=', 'pending').as('oldest'),
    ]).executeTakeFirstOrThrow();
  return { pending: Number(row.pending), refused: Number(row.refused), oldestPendingAt: row.oldest === null ? null : new Date(row.oldest as unknown as string) };
}
