import { claimRequest, CODE_TTL_MS, newToken, pendingRequest, redirectWith } from '../../agents/authorization.ts';
import { matchRedirectUri } from '../../agents/clients.ts';
import { DEFAULT_POLICY, writePolicy, type SpendPolicy } from '../../agents/policy.ts';
import { recordActivity } from '../../audit/activity.ts';
import { API_SCOPES, READ_ONLY_SCOPES } from '../../auth/scopes.ts';
import { hashSecret } from '../../auth/secret-keys.ts';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { canManageKeys } from '../../tenancy/roles.ts';
import { defineAction } from '../../verbs/action.ts';
import { ApproveAgentRequestInput } from './schemas.ts';

/**
 * A person who manages keys approves an agent's sign-in request for the caller's business and mode
 * (spec 5.4): the connection and a single-use code are made, and the browser goes back to the
 * client with the code. Who may approve is checked before the request is spent, so a person who
 * picked the wrong business can choose again.
 */
export const approveAgentRequest = defineAction({
  name: 'approve_agent_request',
  title: 'Connect an agent',
  role: 'developer',
  modeScoped: true,
  effect: 'changes',
  peopleOnly: true,
  input: ApproveAgentRequestInput,
  async run(ctx, input): Promise<{ redirect: string }> {
    const { principal } = ctx;
    const { actor } = principal;
    // peopleOnly has refused anyone else already; this tells TypeScript the actor is a person.
    if (actor.kind !== 'person') throw new ApiError('insufficient_role', 'An agent is connected by a person who manages keys, in the dashboard.');
    const issuer = ctx.config.oauthIssuer;
    const now = ctx.clock.now();
    const found = await pendingRequest(ctx, input.request);
    if (!found) throw new ApiError('invalid_state', 'This sign-in request has expired or was already decided. Start again from the agent.');
    const { request, client } = found;
    if (!matchRedirectUri(client.redirect_uris, request.redirect_uri)) throw new ApiError('invalid_state', 'The client no longer has this redirect URI.');
    const allowed: readonly string[] = input.access === 'full' ? API_SCOPES : READ_ONLY_SCOPES;
    const scopes = request.scopes.filter((scope) => allowed.includes(scope));
    await claimRequest(ctx, input.request);
    if (scopes.length === 0) {
      return { redirect: redirectWith(request.redirect_uri, { error: 'invalid_scope', error_description: 'Read only access grants none of the scopes the agent asked for.', state: request.state }, issuer).href };
    }
    const code = newToken();
    await ctx.db.transaction().execute(async (trx) => {
      // The approver's role is held (FOR SHARE) until the connection exists: a demotion waits, and
      // then disconnects it like every other connection the person approved.
      const held = await trx.selectFrom('memberships').select('role').where('business_id', '=', principal.businessId).where('person_id', '=', actor.personId).forShare().executeTakeFirst();
      if (!canManageKeys(held?.role)) throw new ApiError('insufficient_role', 'Only the business\'s owners and developers can connect agents.');
      const connection = await trx.insertInto('agent_connections').values({
        id: newId('con'), business_id: principal.businessId, livemode: principal.livemode, client_id: client.client_id, client_name: client.client_name,
        approved_by: actor.personId, access: input.access, scopes, resource: request.resource, created_at: now,
      }).returningAll().executeTakeFirstOrThrow();
      await trx.insertInto('oauth_codes').values({
        code_hash: hashSecret(code), connection_id: connection.id, client_id: client.client_id, redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge, resource: request.resource, created_at: now, expires_at: new Date(now.getTime() + CODE_TTL_MS),
      }).execute();
      const policy: SpendPolicy = input.policy
        ? { liveNeedsApproval: input.policy.live_needs_approval, limits: input.policy.limits.map((limit) => ({ currency: limit.currency, perObjectMinor: limit.per_object, perDayMinor: limit.per_day })) }
        : DEFAULT_POLICY;
      await writePolicy(trx, connection.id, policy);
      await recordActivity(trx, principal, 'agent.connected', connection.id, { client_id: client.client_id, client_name: client.client_name, access: input.access, scopes }, now);
    });
    return { redirect: redirectWith(request.redirect_uri, { code, state: request.state }, issuer).href };
  },
});
