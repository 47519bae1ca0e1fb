import { listOutbox, type OutboxMailOut } from '../mail/outbox.ts';
import type { MailHeldBecause } from '../db/schema.ts';
import { BUYER_MAIL_PER_HOUR } from '../resources/payments/mail.ts';
import { asOperator, type Command } from './command.ts';

// The mail outbox as the operator reads it: where SMTP_URL is unset, mail stays here (held), and
// this is how it reaches people; elsewhere, what was sent, what is retrying and what failed.

/** Why a held mail is not sent, as the operator reads it. */
const HELD_WORDS: Record<MailHeldBecause, string> = {
  no_smtp: 'SMTP_URL is unset',
  test_mode: 'Test mode: not to one of the business\'s people',
  address_limit: `this address had its ${BUYER_MAIL_PER_HOUR} buyer mails this hour`,
};

function asText(mail: OutboxMailOut): string {
  const state = [mail.held_because ? `${mail.status} (${HELD_WORDS[mail.held_because]})` : mail.status, mail.attempts ? `${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'}` : '', mail.last_error ?? ''].filter(Boolean).join(', ');
  return [
    `${mail.id}  ${mail.created}  ${state}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    '',
    mail.body ?? (mail.kind === 'sign_in_link' ? '(a sign-in link: its body is not shown)' : '(no body)'),
  ].join('\n');
}

export const outboxCommands: Record<string, Command> = {
  'outbox list': {
    usage: 'outbox list [--business ID] [--json]   (the newest 50 mails; held ones are not sent: SMTP_URL is unset)',
    description: 'the newest 50 mails: recipient, subject, body, status (`held`: written while `SMTP_URL` was unset, never sent; `queued`, `sent`, `failed`), attempts, last error. With `--business`, only mail about that business (an unknown one exits 1); a sign-in link\'s body is never shown',
    options: { business: { type: 'string' } },
    async run(context, flags) {
      // A business named is checked to exist, and only its mail is listed: never another's, nor anyone's sign-in link.
      const businessId = typeof flags.business === 'string' ? (await asOperator(context, flags.business)).principal.businessId : undefined;
      const data = await listOutbox(context.db, businessId === undefined ? {} : { businessId });
      return { json: { data }, text: data.map(asText).join('\n\n---\n\n') || 'The outbox is empty.' };
    },
  },
};
