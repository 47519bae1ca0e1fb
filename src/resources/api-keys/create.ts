import { generateSecretKey, hashSecret, secretHint } from '../../auth/secret-keys.ts';
import { newId } from '../../core/ids.ts';
import { recordActivity } from '../../audit/activity.ts';
import { defineAction } from '../../verbs/action.ts';
import { CreateApiKeyInput, toApiKeyOut } from './schemas.ts';

/** A new secret key in the caller's business and mode; the secret is in this answer only, never stored (spec 5.2). */
export const createApiKey = defineAction({
  name: 'create_api_key',
  title: 'Create a secret key',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  input: CreateApiKeyInput,
  async run(ctx, input) {
    const { principal } = ctx;
    const secret = generateSecretKey(principal.livemode);
    const now = ctx.clock.now();
    const row = await ctx.db.transaction().execute(async (trx) => {
      const key = await trx.insertInto('api_keys').values({
        id: newId('key'),
        business_id: principal.businessId,
        livemode: principal.livemode,
        kind: input.kind,
        access: input.access,
        name: input.name,
        secret_hash: hashSecret(secret),
        secret_hint: secretHint(secret),
        created_by: principal.actor.kind === 'person' ? principal.actor.personId : null,
        created_at: now,
      }).returningAll().executeTakeFirstOrThrow();
      await recordActivity(trx, principal, 'api_key.created', key.id, { kind: key.kind, access: key.access, name: key.name }, now);
      return key;
    });
    return { ...toApiKeyOut(row), secret };
  },
});
