import type { Clock } from '../core/clock.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { Db } from '../db/database.ts';
import type { OutboxTable } from '../db/schema.ts';
import { MAIL_RETRIES, type MailJobData } from '../jobs/queues.ts';
import { MailFailure, type SmtpMailer } from './smtp.ts';
import type { Updateable } from 'kysely';

// The mail job: sends one queued outbox row. A failure is recorded on the row (attempts, the
// error) and thrown, so pg-boss runs the job again with backoff; the last attempt, or a
// refusal the server says is permanent, fails the row for good. Only a row still `queued`
// is sent, so a job that runs again after its mail went out sends nothing.

export interface MailSendDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  /** The SMTP sender; undefined where SMTP_URL is not set. */
  mailer: SmtpMailer | undefined;
}

export interface MailJob {
  data: Partial<MailJobData>;
  /** pg-boss's count of earlier runs: 0 on the first. */
  retryCount: number;
}

async function settle(deps: MailSendDeps, id: string, changes: Updateable<OutboxTable>): Promise<void> {
  await deps.db.updateTable('outbox').set(changes).where('id', '=', id).where('status', '=', 'queued').execute();
}

export async function sendOutboxMail(deps: MailSendDeps, job: MailJob): Promise<void> {
  const id = job.data.mailId;
  if (typeof id !== 'string') return;
  const mail = await deps.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst();
  if (mail?.status !== 'queued') return;
  const now = deps.clock.now();
  if (deps.mailer === undefined) {
    // Queued where SMTP is configured, picked up by a worker where it is not: kept, like all mail written without SMTP.
    return settle(deps, id, { status: 'held', last_error: 'SMTP_URL is not set where the worker runs.' });
  }
  const ended = (error: string) => ({ status: 'failed' as const, last_error: error, finished_at: now, body_sealed: null });
  if (mail.send_before !== null && mail.send_before <= now) return settle(deps, id, ended('Not sent before it expired.'));
  let text: string;
  try {
    text = mail.body_sealed ? deps.secrets.open(mail.body_sealed) : mail.body ?? '';
  } catch {
    return settle(deps, id, ended('The sealed body could not be read (SECRET_ENCRYPTION_KEY changed?).'));
  }
  const attempt = { attempts: mail.attempts + 1, last_attempt_at: now };
  try {
    await deps.mailer.send({ to: mail.recipient, subject: mail.subject, text, ...(mail.body_html === null ? {} : { html: mail.body_html }) });
  } catch (error) {
    const failure = error instanceof MailFailure ? error : new MailFailure('The message could not be sent.', false);
    if (failure.permanent || job.retryCount >= MAIL_RETRIES.retryLimit) return settle(deps, id, { ...attempt, ...ended(failure.message) });
    await settle(deps, id, { ...attempt, last_error: failure.message });
    throw failure;
  }
  // A sealed body (a sign-in link) is not kept once it went out.
  await settle(deps, id, { ...attempt, status: 'sent', last_error: null, finished_at: deps.clock.now(), body_sealed: null });
}
