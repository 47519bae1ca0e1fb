import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { MINUTE } from '../core/clock.ts';
import { queueMail, statusAtWrite, type OutboxDeps } from '../mail/outbox.ts';
import { hashSecret } from './secret-keys.ts';
import { signInLinkUrl, SIGN_IN_LINK_TTL_MS, type SessionDeps } from './sessions.ts';

// Sign-in links by mail (the dashboard's "email me a sign-in link", the CLI's `login-link
// --send`), through the outbox. The link is stored hashed like every other; the mail's body,
// which carries it, is sealed until sent and then erased, and is not worth sending once the
// link has expired. A person is sent at most a few links in a window, so the form cannot be
// used to flood anyone's mailbox.

/** At most this many sign-in links per person per SIGN_IN_LINK_TTL_MS (links made by the CLI count too). */
export const SIGN_IN_LINKS_PER_WINDOW = 3;

function signInMail(url: string, baseUrl: string) {
  return {
    subject: 'Your sign-in link',
    body: [
      'Hello,',
      '',
      `Someone asked to sign in to the dashboard at ${new URL(baseUrl).host} with this address.`,
      `Open this link within ${SIGN_IN_LINK_TTL_MS / MINUTE} minutes to sign in; it works once:`,
      '',
      `  ${url}`,
      '',
      'If that was not you, ignore this mail: the link is of no use without access to your mailbox.',
    ].join('\n'),
  };
}

/**
 * Queues a sign-in link to `email` when it is a person's address (and they were not sent too
 * many lately); returns whether one was queued. The same statements run whether or not the
 * address is anyone's, so the dashboard's answer, and its time, tell nothing. Where no mail is
 * sent (SMTP_URL unset) nothing is made: a link held in the outbox would expire unread.
 */
export async function mailSignInLink(deps: SessionDeps & OutboxDeps, email: string, next?: string): Promise<boolean> {
  if (statusAtWrite(deps.config) !== 'queued') return false;
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  const windowStart = new Date(now.getTime() - SIGN_IN_LINK_TTL_MS);
  const mail = signInMail(signInLinkUrl(deps.config.baseUrl, token, next), deps.config.baseUrl);
  return deps.db.transaction().execute(async (trx) => {
    const links = await trx.insertInto('sign_in_links')
      .columns(['token_hash', 'person_id', 'created_at', 'expires_at'])
      .expression((eb) => eb.selectFrom('people as p').select([
        sql<Buffer>`${hashSecret(token)}::bytea`.as('token_hash'),
        'p.id as person_id',
        sql<Date>`${now}::timestamptz`.as('created_at'),
        sql<Date>`${expiresAt}::timestamptz`.as('expires_at'),
      ])
        .where('p.email', '=', email.trim().toLowerCase())
        .where((w) => w.selectFrom('sign_in_links as l').select(w.fn.countAll<number>().as('n'))
          .whereRef('l.person_id', '=', 'p.id').where('l.created_at', '>', windowStart), '<', SIGN_IN_LINKS_PER_WINDOW))
      .returning('person_id')
      .execute();
    const written = await queueMail(trx, deps, {
      kind: 'sign_in_link',
      businessId: null,
      recipients: trx.selectFrom('people').select('email').where(sql<boolean>`id = ANY(${links.map((link) => link.person_id)}::text[])`),
      ...mail,
      secret: true,
      sendBefore: expiresAt,
    });
    return written > 0;
  });
}
