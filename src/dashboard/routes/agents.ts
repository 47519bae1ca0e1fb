import type { FastifyInstance } from 'fastify';
import { approvalPath } from '../../agents/approvals.ts';
import { ApiError } from '../../core/errors.ts';
import { formField } from '../../core/form.ts';
import { disconnectAgent } from '../../resources/agent-connections/disconnect.ts';
import { listAgentConnections } from '../../resources/agent-connections/list.ts';
import { decideAgentApproval, listPendingApprovals, readAgentApproval, readAgentConnection, updateAgentPolicy } from '../../resources/agent-connections/policy.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { agentPage, approvalPage } from '../pages/agent.ts';
import { policyOfForm, type PolicyValues } from '../pages/agent-policy.ts';
import { agentsPage } from '../pages/agents.ts';
import { businessPath, objectPath } from '../paths.ts';
import { frameOf, redirect, roleOf, type DashboardRequests, type PersonContext } from '../requests.ts';
import { sendPage } from './send.ts';

/** The agents connected to a business in one mode and Disconnect; each agent's spend policy; the approvals their calls wait for. */
export function registerAgents(scope: FastifyInstance, requests: DashboardRequests): void {
  const AGENTS = '/dashboard/businesses/:business/:mode/agents';
  const manages = (ctx: PersonContext) => atLeast(roleOf(ctx), 'developer');
  scope.get(AGENTS, async (request, reply) => {
    const ctx = await requests.page(request);
    const [connections, pending] = await Promise.all([listAgentConnections.run(ctx, {}), listPendingApprovals.run(ctx, {})]);
    return sendPage(reply, 200, agentsPage({ ...frameOf(ctx), manages: manages(ctx), connections, pending }), ctx.session);
  });
  scope.post(`${AGENTS}/:connection/disconnect`, async (request, reply) => {
    const { ctx } = await requests.form(request);
    await disconnectAgent.run(ctx, { id: (request.params as { connection: string }).connection });
    return redirect(reply, businessPath(ctx.principal.businessId, 'agents', ctx.mode));
  });

  const showAgent = async (ctx: PersonContext, id: string, shown?: { values: PolicyValues; error: string }, saved = false) => {
    const detail = await readAgentConnection.run(ctx, { id });
    const values = shown?.values ?? { live_needs_approval: detail.live_needs_approval, limits: detail.limits };
    return agentPage({ ...frameOf(ctx), manages: manages(ctx), detail, values, error: shown?.error, saved });
  };
  scope.get(`${AGENTS}/:connection`, async (request, reply) => {
    const ctx = await requests.page(request);
    const saved = (request.query as Record<string, unknown>).saved === '1';
    return sendPage(reply, 200, await showAgent(ctx, (request.params as { connection: string }).connection, undefined, saved), ctx.session);
  });
  scope.post(`${AGENTS}/:connection/policy`, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const id = (request.params as { connection: string }).connection;
    const values = policyOfForm(form);
    try {
      await updateAgentPolicy.run(ctx, { id, ...values });
    } catch (error) {
      // A refused policy keeps what the person typed, with why.
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return sendPage(reply, 400, await showAgent(ctx, id, { values, error: error.message }), ctx.session);
    }
    return redirect(reply, `${objectPath(ctx.principal.businessId, 'agents', ctx.mode, id)}?saved=1`);
  });

  const showApproval = async (ctx: PersonContext, id: string, error?: string) => {
    const { approval, connection } = await readAgentApproval.run(ctx, { id });
    return approvalPage({ ...frameOf(ctx), manages: manages(ctx), approval, connection, error });
  };
  scope.get(`${AGENTS}/approvals/:approval`, async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, await showApproval(ctx, (request.params as { approval: string }).approval), ctx.session);
  });
  scope.post(`${AGENTS}/approvals/:approval/decide`, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const id = (request.params as { approval: string }).approval;
    try {
      await decideAgentApproval.run(ctx, { id, decision: formField(form, 'decision') });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_state') throw error;
      return sendPage(reply, 409, await showApproval(ctx, id, error.message), ctx.session);
    }
    return redirect(reply, approvalPath({ id, business_id: ctx.principal.businessId, livemode: ctx.principal.livemode }));
  });
}
