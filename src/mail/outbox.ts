import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { DAY, type Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { BATCH, inBatches } from '../db/batches.ts';
import type { Db } from '../db/database.ts';
import type { Database, MailHeldBecause, MailKind, MailStatus } from '../db/schema.ts';
import type { JobSender } from '../jobs/queues.ts';

// The outbox: mail is written in the transaction of what it tells of, one row per recipient (so
// one address refused or retried never holds up or repeats another's), and, when SMTP_URL is
// set, a pg-boss job per row in the same statement. Without SMTP_URL the rows are `held`: they
// stay here for the operator to read (`outbox list`) and are never sent.

/** Sent, failed and held mail stays this long. */
export const OUTBOX_RETENTION_MS = 30 * DAY;

export interface OutboxDeps {
  jobs: JobSender;
  /** Seals a secret body; needed only for mail with `secret`. */
  secrets?: SecretBox;
  clock: Clock;
  config: Pick<Config, 'mail'>;
}

export interface NewMail {
  kind: MailKind;
  /** The business the mail is about; null for a person's own mail (a sign-in link). */
  businessId: string | null;
  /** Who gets it: a query selecting `email`, run inside the same statement. */
  recipients: SelectQueryBuilder<Database, any, { email: string }>;
  subject: string;
  body: string;
  /** The HTML alternative of `body`, sent with it as multipart/alternative. */
  html?: string;
  /** The payment the mail is about: erasing its buyer deletes the mail. */
  paymentId?: string;
  /** The body carries a secret (a sign-in link): sealed at rest, never listed, erased once sent. */
  secret?: boolean;
  /** Not worth sending after this (the link's expiry). */
  sendBefore?: Date;
  /**
   * Why a recipient's copy is not sent, as SQL over `recipients.email` (null: sent): the rule
   * that keeps buyer mail from being aimed at strangers (resources/payments/mail.ts).
   */
  withheld?: RawBuilder<MailHeldBecause | null>;
}

/** Whether mail written now is sent: only where SMTP is configured. */
export function statusAtWrite(config: Pick<Config, 'mail'>): MailStatus {
  return config.mail.smtpUrl ? 'queued' : 'held';
}

/**
 * Writes one outbox row per recipient (and, when SMTP is configured, its job) in one statement,
 * in the caller's transaction; returns how many rows. No recipient: nothing is written.
 */
export async function queueMail(db: Db, deps: OutboxDeps, mail: NewMail): Promise<number> {
  const status = statusAtWrite(deps.config);
  if (mail.secret && deps.secrets === undefined) throw new Error('A mail with a secret body needs the secret box to seal it.');
  const sealed = mail.secret ? deps.secrets!.seal(mail.body) : null;
  const withheld = mail.withheld ?? sql<MailHeldBecause | null>`null`;
  const query = db
    .with('recipients', () => mail.recipients)
    .with('decided', (qc) => qc.selectFrom('recipients').distinct().select([
      'recipients.email',
      sql<MailHeldBecause | null>`coalesce(${withheld}, ${status === 'held' ? 'no_smtp' : null}::text)`.as('held_because'),
    ]))
    .with('mail', (qc) => qc.insertInto('outbox')
      .columns(['id', 'business_id', 'kind', 'recipient', 'subject', 'body', 'body_sealed', 'body_html', 'payment_id', 'status', 'held_because', 'send_before', 'created_at'])
      .expression((eb) => eb.selectFrom('decided as recipients').select([
        sql<string>`'mail_' || replace(gen_random_uuid()::text, '-', '')`.as('id'),
        sql<string | null>`${mail.businessId}::text`.as('business_id'),
        sql<MailKind>`${mail.kind}::text`.as('kind'),
        sql<string>`lower(recipients.email)`.as('recipient'),
        sql<string>`${mail.subject}::text`.as('subject'),
        sql<string | null>`${sealed ? null : mail.body}::text`.as('body'),
        sql<Buffer | null>`${sealed}::bytea`.as('body_sealed'),
        sql<string | null>`${mail.html ?? null}::text`.as('body_html'),
        sql<string | null>`${mail.paymentId ?? null}::text`.as('payment_id'),
        sql<MailStatus>`CASE WHEN recipients.held_because IS NULL THEN ${status}::text ELSE 'held' END`.as('status'),
        'recipients.held_because',
        sql<Date | null>`${mail.sendBefore ?? null}::timestamptz`.as('send_before'),
        sql<Date>`${deps.clock.now()}::timestamptz`.as('created_at'),
      ]))
      .returning(['id', 'status']));
  const count = sql<number>`(SELECT count(*) FROM mail)::int`.as('written');
  const row = status === 'queued'
    ? await query.with('queued', (qc) => qc.selectFrom('mail').select('id').where('status', '=', 'queued'))
      .with('jobs', () => deps.jobs.mailJobsOf('queued')).selectNoFrom(count).executeTakeFirstOrThrow()
    : await query.selectNoFrom(count).executeTakeFirstOrThrow();
  return row.written;
}

/** A mail as the operator reads it. */
export interface OutboxMailOut {
  id: string;
  business_id: string | null;
  kind: MailKind;
  to: string;
  subject: string;
  /** Null when the body carries a secret (a sign-in link), or once such a body is erased. */
  body: string | null;
  status: MailStatus;
  /** Why a held mail is not sent; null unless held. */
  held_because: MailHeldBecause | null;
  attempts: number;
  last_error: string | null;
  created: string;
  last_attempt: string | null;
  finished: string | null;
}

/**
 * The newest mail of the outbox: every business's and people's own, or with `businessId` only
 * what is about that business (never another's, nor anyone's sign-in link).
 */
export async function listOutbox(db: Db, filter: { businessId?: string; limit?: number } = {}): Promise<OutboxMailOut[]> {
  let query = db.selectFrom('outbox').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit ?? 50);
  if (filter.businessId !== undefined) query = query.where('business_id', '=', filter.businessId);
  return (await query.execute()).map((row) => ({
    id: row.id,
    business_id: row.business_id,
    kind: row.kind,
    to: row.recipient,
    subject: row.subject,
    body: row.body,
    status: row.status,
    held_because: row.held_because,
    attempts: row.attempts,
    last_error: row.last_error,
    created: row.created_at.toISOString(),
    last_attempt: row.last_attempt_at?.toISOString() ?? null,
    finished: row.finished_at?.toISOString() ?? null,
  }));
}

/** Retention: mail older than 30 days, whatever became of it. */
export async function forgetOldMail(ctx: { db: Db; clock: Clock }): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - OUTBOX_RETENTION_MS);
  return inBatches(async () => {
    const result = await ctx.db.deleteFrom('outbox')
      .where('id', 'in', (eb) => eb.selectFrom('outbox').select('id').where('created_at', '<', cutoff).limit(BATCH))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}
