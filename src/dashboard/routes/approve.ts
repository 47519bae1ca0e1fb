import type { FastifyInstance } from 'fastify';
import { APPROVE_PATH, denyRequest, pendingRequest } from '../../agents/authorization.ts';
import { ApiError } from '../../core/errors.ts';
import { formField } from '../../core/form.ts';
import { approveAgentRequest } from '../../resources/agent-connections/approve.ts';
import { businessesOf } from '../../tenancy/businesses.ts';
import type { AppContext } from '../../verbs/context.ts';
import { approvePage } from '../pages/approve.ts';
import { policyOfForm, postsPolicy } from '../pages/agent-policy.ts';
import { messagePage } from '../pages/message.ts';
import { redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** An agent's sign-in request, decided by a person (spec 5.4): approve for a business and mode, or deny. */
export function registerApproval(scope: FastifyInstance, context: AppContext, requests: DashboardRequests): void {
  scope.get(APPROVE_PATH, async (request, reply) => {
    const session = await requests.signedIn(request);
    const requestId = String((request.query as Record<string, unknown>).request ?? '');
    const found = await pendingRequest(context, requestId);
    if (!found) return sendPage(reply, 400, messagePage('This sign-in request has expired', 'Start again from the agent.', session), session);
    const { request: pending, client } = found;
    const businesses = await businessesOf(context.db, session.personId, 'developer');
    return sendPage(reply, 200, approvePage(session, {
      id: requestId, clientName: client.client_name, clientId: client.client_id,
      describedAt: client.kind === 'metadata_document' ? client.client_id : null,
      redirectUri: pending.redirect_uri, scopes: pending.scopes, resource: pending.resource,
    }, businesses), session);
  });

  scope.post(APPROVE_PATH, async (request, reply) => {
    const { session, form } = await requests.posted(request);
    const requestId = formField(form, 'request') ?? '';
    if (formField(form, 'decision') !== 'approve') return redirect(reply, (await denyRequest(context, requestId)).href);
    // The business and mode chosen make the principal; the action checks the person's role there.
    const mode = formField(form, 'mode');
    if (mode !== 'test' && mode !== 'live') throw new ApiError('invalid_mode', 'Choose Test or Live.', 'mode');
    const ctx = await requests.acting(session, { business: formField(form, 'business') ?? '', mode });
    const { redirect: target } = await approveAgentRequest.run(ctx, { request: requestId, access: formField(form, 'access'), ...(postsPolicy(form) ? { policy: policyOfForm(form) } : {}) });
    return redirect(reply, target);
  });
}
