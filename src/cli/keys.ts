import { createSecretKey, listSecretKeys, revokeSecretKey } from '../resources/api-keys/admin.ts';
import { scopesForKey } from '../auth/scopes.ts';
import type { ApiKeyRow } from '../db/schema.ts';
import { oneOf, required, UsageError, type Command } from './command.ts';
import { RefusedError } from '../core/errors.ts';
import { createSignInLink, safeNext } from '../auth/sessions.ts';

function keyJson(key: ApiKeyRow) {
  return {
    id: key.id,
    business: key.business_id,
    mode: key.livemode ? 'live' : 'test',
    kind: key.kind,
    access: key.access,
    scopes: scopesForKey(key.kind, key.access),
    hint: key.secret_hint,
    created: key.created_at.toISOString(),
    last_used: key.last_used_at?.toISOString() ?? null,
    revoked: key.revoked_at?.toISOString() ?? null,
  };
}

export const keyCommands: Record<string, Command> = {
  'login-link': {
    usage: 'login-link --email EMAIL [--next /dashboard/...] [--json]   (a single-use dashboard sign-in link, valid 15 minutes)',
    options: { email: { type: 'string' }, next: { type: 'string' } },
    async run(context, flags) {
      const email = required(flags, 'email');
      const next = typeof flags.next === 'string' ? safeNext(flags.next) : undefined;
      const link = await createSignInLink(context, email, next);
      if (!link) throw new RefusedError(`No person with the email ${email}; add them with members set first.`);
      return { json: { url: link.url, expires: link.expiresAt.toISOString() }, text: `Open within 15 minutes, once:\n  ${link.url}` };
    },
  },
  'oauth rotate-signing-key': {
    usage: 'oauth rotate-signing-key [--json]   (agents\' tokens are signed with a new key; live tokens keep working)',
    options: {},
    async run(context) {
      await context.signingKeys.rotate();
      const { keys } = await context.signingKeys.jwks();
      return { json: { kids: keys.map((key) => key.kid) }, text: `Signing with a new key; published: ${keys.map((key) => key.kid).join(', ')}.` };
    },
  },
  'keys create': {
    usage: 'keys create --business ID --mode test|live [--access full|read_only] [--kind api|plugin|legacy] [--name NAME] [--json]',
    options: { business: { type: 'string' }, mode: { type: 'string' }, access: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
    async run(context, flags) {
      const mode = oneOf(required(flags, 'mode'), ['test', 'live'], 'mode');
      const { key, secret } = await createSecretKey(context.db, context.clock, {
        businessId: required(flags, 'business'),
        livemode: mode === 'live',
        access: oneOf(flags.access, ['full', 'read_only'], 'access'),
        kind: oneOf(flags.kind, ['api', 'plugin', 'legacy'], 'kind'),
        name: typeof flags.name === 'string' ? flags.name : null,
      });
      return {
        json: { ...keyJson(key), secret },
        text: `Created ${mode} key ${key.id}. Its secret is shown only now:\n\n  ${secret}\n`,
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke KEY_ID [--json]',
    options: {},
    async run(context, _flags, [id]) {
      if (!id) throw new UsageError('Name the key: keys revoke KEY_ID');
      const { key, removedEndpoints } = await revokeSecretKey(context.db, context.clock, id);
      return {
        json: { ...keyJson(key), removed_webhook_endpoints: removedEndpoints },
        text: `Revoked ${key.id}.${removedEndpoints.length ? ` Removed the webhook endpoints it added: ${removedEndpoints.join(', ')}.` : ''}`,
      };
    },
  },
  'keys list': {
    usage: 'keys list --business ID [--json]',
    options: { business: { type: 'string' } },
    async run(context, flags) {
      const keys = (await listSecretKeys(context.db, required(flags, 'business'))).map(keyJson);
      return {
        json: { data: keys },
        text: keys.map((k) => `${k.id}  ${k.mode}  ${k.kind}/${k.access}  ${k.hint}${k.revoked ? '  revoked' : ''}`).join('\n') || 'No keys.',
      };
    },
  },
};
