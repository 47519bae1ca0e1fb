import type { FastifyInstance } from 'fastify';
import { formField } from '../../core/form.ts';
import { listMembers } from '../../resources/team/list.ts';
import { setMemberRole } from '../../resources/team/set-role.ts';
import { teamPage } from '../pages/team.ts';
import { businessPath } from '../paths.ts';
import { frameOf, redirect, roleOf, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** The team: who belongs to the business and with which role; owners change roles. */
export function registerTeam(scope: FastifyInstance, requests: DashboardRequests): void {
  const TEAM = '/dashboard/businesses/:business/:mode/team';
  scope.get(TEAM, async (request, reply) => {
    const ctx = await requests.page(request);
    return sendPage(reply, 200, teamPage({ ...frameOf(ctx), isOwner: roleOf(ctx) === 'owner', members: await listMembers.run(ctx, {}) }), ctx.session);
  });
  scope.post(TEAM, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    await setMemberRole.run(ctx, { email: formField(form, 'email'), role: formField(form, 'role') });
    return redirect(reply, businessPath(ctx.principal.businessId, 'team', ctx.mode));
  });
}
