import { createSignInLink, safeNext } from '../auth/sessions.ts';
import { mailSignInLink, SIGN_IN_LINKS_PER_WINDOW } from '../auth/sign-in-mail.ts';
import { personByEmail } from '../tenancy/businesses.ts';
import type { AppContext } from '../verbs/context.ts';
import { ApiError } from '../core/errors.ts';
import { createApiKey } from '../resources/api-keys/create.ts';
import { listApiKeys } from '../resources/api-keys/list.ts';
import { revokeApiKey } from '../resources/api-keys/revoke.ts';
import { asOperator, asOperatorOn, oneOf, required, UsageError, type Command } from './command.ts';

/** `login-link --send`: the link goes to the person by mail (through the outbox), never to the terminal. */
async function sendLoginLink(context: AppContext, email: string, next: string | undefined) {
  if (!context.config.mail.smtpUrl) throw new ApiError('invalid_request', 'SMTP_URL is not set, so no mail is sent: leave out --send to print the link.');
  if (!await personByEmail(context.db, email)) throw new ApiError('not_found', `No person with the email ${email}; add them with members set first.`);
  if (!await mailSignInLink(context, email, next)) {
    throw new ApiError('invalid_request', `${email} was sent ${SIGN_IN_LINKS_PER_WINDOW} sign-in links in the last 15 minutes; wait, or leave out --send to print one.`);
  }
  return { json: { sent: true, to: email.trim().toLowerCase() }, text: `A sign-in link is on its way to ${email} (valid 15 minutes, once).` };
}

export const keyCommands: Record<string, Command> = {
  'login-link': {
    usage: 'login-link --email EMAIL [--next /dashboard/...] [--send] [--json]   (a single-use dashboard sign-in link, valid 15 minutes; --send mails it)',
    description: 'a single-use dashboard sign-in link for that person, valid 15 minutes → `{ "url": … }`; with `--send` it is mailed to them instead (needs `SMTP_URL`) → `{ "sent": true, "to": … }`',
    options: { email: { type: 'string' }, next: { type: 'string' }, send: { type: 'boolean' } },
    async run(context, flags) {
      const email = required(flags, 'email');
      const next = typeof flags.next === 'string' ? safeNext(flags.next) : undefined;
      if (flags.send) return sendLoginLink(context, email, next);
      const link = await createSignInLink(context, email, next);
      if (!link) throw new ApiError('not_found', `No person with the email ${email}; add them with members set first.`);
      return { json: { url: link.url, expires: link.expiresAt.toISOString() }, text: `Open within 15 minutes, once:\n  ${link.url}` };
    },
  },
  'oauth rotate-signing-key': {
    usage: 'oauth rotate-signing-key [--json]   (agents\' tokens are signed with a new key; live tokens keep working)',
    description: 'agents\' access tokens are signed with a new key from now on; tokens already issued keep working',
    options: {},
    async run(context) {
      await context.signingKeys.rotate();
      const { keys } = await context.signingKeys.jwks();
      return { json: { kids: keys.map((key) => key.kid) }, text: `Signing with a new key; published: ${keys.map((key) => key.kid).join(', ')}.` };
    },
  },
  'keys create': {
    usage: 'keys create --business ID --mode test|live [--access full|read_only] [--kind api|plugin|legacy] [--name NAME] [--json]',
    description: 'a secret key, shown once → `{ "id": …, "secret": …, "scopes": … }`',
    options: { business: { type: 'string' }, mode: { type: 'string' }, access: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
    async run(context, flags) {
      const mode = oneOf(required(flags, 'mode'), ['test', 'live'], 'mode');
      const operator = await asOperator(context, required(flags, 'business'), mode === 'live');
      const key = await createApiKey.run(operator, { access: flags.access, kind: flags.kind, name: flags.name });
      return { json: key, text: `Created ${mode} key ${key.id}. Its secret is shown only now:\n\n  ${key.secret}\n` };
    },
  },
  'keys revoke': {
    usage: 'keys revoke KEY_ID [--json]',
    description: 'revokes the key and removes the webhook endpoints it added',
    options: {},
    async run(context, _flags, [id]) {
      if (!id) throw new UsageError('Name the key: keys revoke KEY_ID');
      const key = await revokeApiKey.run(await asOperatorOn(context, 'api_key', id), { id });
      const removed = key.removed_webhook_endpoints;
      return { json: key, text: `Revoked ${key.id}.${removed.length ? ` Removed the webhook endpoints it added: ${removed.join(', ')}.` : ''}` };
    },
  },
  'keys list': {
    usage: 'keys list --business ID [--json]   (both modes)',
    description: 'keys of both modes with their hint, scopes, last use and revocation',
    options: { business: { type: 'string' } },
    async run(context, flags) {
      const business = required(flags, 'business');
      const keys = [
        ...await listApiKeys.run(await asOperator(context, business, false), {}),
        ...await listApiKeys.run(await asOperator(context, business, true), {}),
      ];
      return {
        json: { data: keys },
        text: keys.map((k) => `${k.id}  ${k.mode}  ${k.kind}/${k.access}  ${k.hint}${k.revoked ? '  revoked' : ''}`).join('\n') || 'No keys.',
      };
    },
  },
};
