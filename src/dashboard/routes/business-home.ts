import type { FastifyInstance } from 'fastify';
import { readGoLiveChecklist } from '../../resources/businesses/go-live.ts';
import { readBusinessHome } from '../../resources/businesses/home.ts';
import { businessHomePage } from '../pages/business-home.ts';
import { areaRoute } from '../paths.ts';
import { frameOf, type DashboardRequests } from '../requests.ts';
import { sendPage } from './send.ts';

/** A business's home in a mode: where the business list and the bare address `/…/<mode>` land. */
export function registerBusinessHome(scope: FastifyInstance, requests: DashboardRequests): void {
  scope.get(areaRoute('home'), async (request, reply) => {
    const ctx = await requests.page(request);
    const [home, checklist] = await Promise.all([
      readBusinessHome.run(ctx, { timeZone: ctx.session.timeZone }),
      ctx.mode === 'live' ? readGoLiveChecklist.run(ctx, {}) : undefined,
    ]);
    return sendPage(reply, 200, businessHomePage({ ...frameOf(ctx), home, ...(checklist ? { checklist } : {}) }), ctx.session);
  });
}
