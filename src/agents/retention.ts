import { DAY, type Clock } from '../core/clock.ts';
import type { Db } from '../db/database.ts';
import { CLIENT_UNUSED_EXPIRY_MS } from './clients.ts';

/**
 * The authorization server's leftovers: requests and codes past their life, refresh tokens past
 * theirs, agents' approval requests 30 days past their expiry, and clients (registered or known by a metadata document) nobody used for 90 days, with
 * nothing connected through them.
 */
export async function forgetOAuthLeftovers(ctx: { db: Db; clock: Clock }): Promise<number> {
  const now = ctx.clock.now();
  const dayAgo = new Date(now.getTime() - DAY);
  const requests = await ctx.db.deleteFrom('oauth_requests').where('expires_at', '<=', dayAgo).executeTakeFirst();
  const codes = await ctx.db.deleteFrom('oauth_codes').where('expires_at', '<=', dayAgo).executeTakeFirst();
  const refresh = await ctx.db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<=', dayAgo).executeTakeFirst();
  // Approval requests stay 30 days past their expiry, for the agent's page and the account's activity.
  const approvals = await ctx.db.deleteFrom('agent_approvals').where('expires_at', '<=', new Date(now.getTime() - 30 * DAY)).executeTakeFirst();
  const clients = await ctx.db.deleteFrom('oauth_clients')
    .where('last_used_at', '<=', new Date(now.getTime() - CLIENT_UNUSED_EXPIRY_MS))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('agent_connections as c').select('c.id')
      .whereRef('c.client_id', '=', 'oauth_clients.client_id').where('c.disconnected_at', 'is', null))))
    .executeTakeFirst();
  return [requests, codes, refresh, approvals, clients].reduce((sum, result) => sum + Number(result.numDeletedRows), 0);
}
