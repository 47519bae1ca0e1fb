import type { FastifyInstance } from 'fastify';
import { formField } from '../../core/form.ts';
import { listMembers } from '../../resources/team/list.ts';
import { readNotificationPreferences, setNotificationPreferences } from '../../resources/team/notifications.ts';
import { setMemberRole } from '../../resources/team/set-role.ts';
import { noticeForPage, noticeOfPage } from '../notices.ts';
import { teamPage } from '../pages/team.ts';
import { businessPath } from '../paths.ts';
import { formRefusal } from '../refusals.ts';
import { frameOf, redirect, roleOf, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** The team: who belongs to the business and with which role; owners add people (as viewers unless they choose) and change roles. */
export function registerTeam(scope: FastifyInstance, requests: DashboardRequests): void {
  const TEAM = '/dashboard/businesses/:business/:mode/team';
  scope.get(TEAM, async (request, reply) => {
    const ctx = await requests.page(request);
    const saved = await noticeOfPage(request, ctx, 'team');
    return sendPage(reply, 200, teamPage({ ...frameOf(ctx), isOwner: roleOf(ctx) === 'owner', members: await listMembers.run(ctx, {}),
      notifications: await readNotificationPreferences.run(ctx, {}), ...(saved ? { saved } : {}) }), ctx.session);
  });
  scope.post(TEAM, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const typed = { email: formField(form, 'email') ?? '', role: formField(form, 'role') ?? '' };
    try {
      const member = await setMemberRole.run(ctx, { email: formField(form, 'email'), role: formField(form, 'role') });
      await noticeForPage(request, ctx, 'team', { email: member.email, role: member.role });
    } catch (error) {
      // Refused (an address that is not one, the last owner): the page again, as typed, saying why.
      const { status, ...refusal } = formRefusal(error, ctx);
      const page = teamPage({ ...frameOf(ctx), isOwner: roleOf(ctx) === 'owner', members: await listMembers.run(ctx, {}),
        notifications: await readNotificationPreferences.run(ctx, {}), refused: { ...typed, error: refusal } });
      return sendPage(reply, status, page, ctx.session);
    }
    return redirect(reply, businessPath(ctx.principal.businessId, 'team', ctx.mode));
  });
  // The signed-in person's own held-payment mail: on or off.
  scope.post(`${TEAM}/notifications`, async (request, reply) => {
    const { ctx, form } = await requests.form(request);
    const choice = formField(form, 'held_payment_mail');
    await setNotificationPreferences.run(ctx, { held_payment_mail: choice === 'on' ? true : choice === 'off' ? false : choice });
    return redirect(reply, `${businessPath(ctx.principal.businessId, 'team', ctx.mode)}#notifications`);
  });
}
