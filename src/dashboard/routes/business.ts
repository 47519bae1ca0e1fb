import type { FastifyInstance } from 'fastify';
import { formField } from '../../core/form.ts';
import { disconnectAgent } from '../../resources/agent-connections/disconnect.ts';
import { listAgentConnections } from '../../resources/agent-connections/list.ts';
import { createApiKey } from '../../resources/api-keys/create.ts';
import { listApiKeys } from '../../resources/api-keys/list.ts';
import { revokeApiKey } from '../../resources/api-keys/revoke.ts';
import { listMembers } from '../../resources/team/list.ts';
import { setMemberRole } from '../../resources/team/set-role.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { agentsPage } from '../pages/agents.ts';
import type { BusinessFrame } from '../pages/frame.ts';
import { keysPage } from '../pages/keys.ts';
import { teamPage } from '../pages/team.ts';
import { businessPath } from '../paths.ts';
import { redirect, type DashboardRequests, type PersonContext } from '../requests.ts';
import type { SendPage } from './send.ts';

// A business's areas: each handler builds the person's principal from the session and the URL,
// calls one action (which decides what the person's role allows) and renders a page.

function frame(ctx: PersonContext): BusinessFrame {
  return { session: ctx.session, business: { id: ctx.principal.businessId, name: ctx.principal.business.name }, mode: ctx.mode };
}

/** What the person may do, for the page to offer it (the action decides anyway). */
function role(ctx: PersonContext) {
  return ctx.principal.actor.kind === 'person' ? ctx.principal.actor.role : 'viewer';
}

export function registerBusinessRoutes(scope: FastifyInstance, requests: DashboardRequests, send: SendPage): void {
  const KEYS = '/dashboard/businesses/:business/:mode/keys';
  scope.get(KEYS, async (request, reply) => {
    const ctx = await requests.page(request);
    return send(reply, 200, keysPage({ ...frame(ctx), manages: atLeast(role(ctx), 'developer'), keys: await listApiKeys.run(ctx, {}) }), ctx.session);
  });
  scope.post(KEYS, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const key = await createApiKey.run(ctx, { name: formField(form, 'name'), access: formField(form, 'access') });
    // The secret is in this response only (never stored, never in a URL).
    return send(reply, 200, keysPage({ ...frame(ctx), manages: true, keys: await listApiKeys.run(ctx, {}), created: { secret: key.secret, name: key.name } }), ctx.session);
  });
  scope.post(`${KEYS}/:key/revoke`, async (request, reply) => {
    const { ctx } = await requests.form(request);
    await revokeApiKey.run(ctx, { id: (request.params as { key: string }).key });
    return redirect(reply, businessPath(ctx.principal.businessId, 'keys', ctx.mode));
  });

  const AGENTS = '/dashboard/businesses/:business/:mode/agents';
  scope.get(AGENTS, async (request, reply) => {
    const ctx = await requests.page(request);
    return send(reply, 200, agentsPage({ ...frame(ctx), manages: atLeast(role(ctx), 'developer'), connections: await listAgentConnections.run(ctx, {}) }), ctx.session);
  });
  scope.post(`${AGENTS}/:connection/disconnect`, async (request, reply) => {
    const { ctx } = await requests.form(request);
    await disconnectAgent.run(ctx, { id: (request.params as { connection: string }).connection });
    return redirect(reply, businessPath(ctx.principal.businessId, 'agents', ctx.mode));
  });

  const TEAM = '/dashboard/businesses/:business/:mode/team';
  scope.get(TEAM, async (request, reply) => {
    const ctx = await requests.page(request);
    return send(reply, 200, teamPage({ ...frame(ctx), isOwner: role(ctx) === 'owner', members: await listMembers.run(ctx, {}) }), ctx.session);
  });
  scope.post(TEAM, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    await setMemberRole.run(ctx, { email: formField(form, 'email'), role: formField(form, 'role') });
    return redirect(reply, businessPath(ctx.principal.businessId, 'team', ctx.mode));
  });
}
