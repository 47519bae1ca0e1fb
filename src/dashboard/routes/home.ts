import type { FastifyInstance } from 'fastify';
import { businessesOf } from '../../tenancy/businesses.ts';
import type { AppContext } from '../../verbs/context.ts';
import { homePage } from '../pages/home.ts';
import type { DashboardRequests } from '../requests.ts';
import type { SendPage } from './send.ts';

/** The person's own businesses: where every other page starts. */
export function registerHome(scope: FastifyInstance, context: AppContext, requests: DashboardRequests, send: SendPage): void {
  scope.get('/dashboard', async (request, reply) => {
    const session = await requests.signedIn(request);
    return send(reply, 200, homePage(session, await businessesOf(context.db, session.personId)), session);
  });
}
