import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { isTimeZone, setTimeZone } from '../../auth/sessions.ts';
import { formField } from '../../core/form.ts';
import { businessesOf } from '../../tenancy/businesses.ts';
import { businessPath } from '../paths.ts';
import type { AppContext } from '../../verbs/context.ts';
import { homePage } from '../pages/home.ts';
import { redirect, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** The person's own businesses: where every other page starts; and addresses that moved. */
export function registerHome(scope: FastifyInstance, context: AppContext, requests: DashboardRequests): void {
  scope.get('/dashboard', async (request, reply) => {
    const session = await requests.signedIn(request);
    const saved = (request.query as { zone?: unknown }).zone === 'saved';
    return sendPage(reply, 200, homePage(session, await businessesOf(context.db, session.personId), { saved }), session);
  });
  // The person's own time zone for every page's times (a preference of theirs, in no business).
  scope.post('/dashboard/time-zone', async (request, reply) => {
    const { session, form } = await requests.posted(request);
    const typed = (formField(form, 'time_zone') ?? '').trim();
    if (!isTimeZone(typed)) {
      const error = 'Enter a time zone as in Europe/Berlin or America/New_York, or UTC.';
      return sendPage(reply, 400, homePage(session, await businessesOf(context.db, session.personId), { error, typed }), session);
    }
    await setTimeZone(context, session.personId, typed);
    return redirect(reply, '/dashboard?zone=saved');
  });
  // A business's bare address in a mode lands on its home; addresses from before the Test/Live
  // switch (bookmarks, sign-in links' next) land in Test.
  scope.get('/dashboard/businesses/:business/:area', async (request, reply) => {
    const { business, area } = request.params as { business: string; area: string };
    if (area === 'test' || area === 'live') return redirect(reply, businessPath(business, 'home', area));
    if (area !== 'keys' && area !== 'agents' && area !== 'team') throw new ApiError('not_found', 'There is no such page.');
    return redirect(reply, businessPath(business, area, 'test'));
  });
}
