import type { FastifyInstance } from 'fastify';
import { disconnectAgent } from '../../resources/agent-connections/disconnect.ts';
import { listAgentConnections } from '../../resources/agent-connections/list.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { agentsPage } from '../pages/agents.ts';
import { businessPath } from '../paths.ts';
import { frameOf, redirect, roleOf, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** The agents connected to a business in one mode, and Disconnect. */
export function registerAgents(scope: FastifyInstance, requests: DashboardRequests): void {
  const AGENTS = '/dashboard/businesses/:business/:mode/agents';
  scope.get(AGENTS, async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, agentsPage({ ...frameOf(ctx), manages: atLeast(roleOf(ctx), 'developer'), connections: await listAgentConnections.run(ctx, {}) }), ctx.session);
  });
  scope.post(`${AGENTS}/:connection/disconnect`, async (request, reply) => {
    const { ctx } = await requests.form(request);
    await disconnectAgent.run(ctx, { id: (request.params as { connection: string }).connection });
    return redirect(reply, businessPath(ctx.principal.businessId, 'agents', ctx.mode));
  });
}
