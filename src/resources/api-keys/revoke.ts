import { recordActivity } from '../../audit/activity.ts';
import { announceAuthChange } from '../../db/auth-changes.ts';
import { defineAction } from '../../verbs/action.ts';
import { removeEndpoints } from '../webhook-endpoints/remove.ts';
import { getApiKey } from './queries.ts';
import { ApiKeyIdInput, toApiKeyOut } from './schemas.ts';

/**
 * Revokes a key of the caller's business and mode; the webhook endpoints it added are removed with
 * it (spec 4.4). Revoking an already revoked key changes nothing. The key stops working at once in
 * every process (credential caches are told).
 */
export const revokeApiKey = defineAction({
  name: 'revoke_api_key',
  title: 'Revoke a secret key',
  role: 'developer',
  modeScoped: true,
  effect: 'withdraws',
  input: ApiKeyIdInput,
  async run(ctx, input) {
    const { principal } = ctx;
    const now = ctx.clock.now();
    const result = await ctx.db.transaction().execute(async (trx) => {
      const found = await getApiKey(trx, principal, input.id);
      const revoked = await trx.updateTable('api_keys').set({ revoked_at: now })
        .where('id', '=', found.id).where('revoked_at', 'is', null).returningAll().executeTakeFirst();
      // Revoked already (or by a concurrent revoke): the key as it is now, nothing more to remove.
      if (!revoked) return { key: await getApiKey(trx, principal, found.id), removed: [] as string[] };
      const removed = await removeEndpoints(trx, (eb) => eb('api_key_id', '=', found.id), now);
      await recordActivity(trx, principal, 'api_key.revoked', found.id, { removed_webhook_endpoints: removed }, now);
      return { key: revoked, removed };
    });
    announceAuthChange();
    return { ...toApiKeyOut(result.key), removed_webhook_endpoints: result.removed };
  },
});
