import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { readTrackingView, type TrackingView } from '../../resources/payer/view.ts';
import type { PayerPages } from '../requests.ts';
import { trackPage } from '../views/track.ts';

/**
 * A payment link's tracking page (spec 2.1 tracking_url), at its own token: only links have
 * one, and nothing on it leads to the payer page. Its script polls its own status address.
 */
export function registerTrackRoutes(scope: FastifyInstance, pages: PayerPages): void {
  const view = async (request: FastifyRequest): Promise<{ token: string; found: TrackingView }> => {
    const { token } = request.params as { token: string };
    const found = await readTrackingView(pages.context.db, token, pages.context.clock.now());
    if (!found) throw new ApiError('not_found', 'There is no payment link at this address.');
    return { token, found };
  };
  scope.get('/track/:token', async (request, reply) => {
    const { token, found } = await view(request);
    const statusUrl = `/track/${encodeURIComponent(token)}/status`;
    return pages.sendKept(request, reply, JSON.stringify({ found, statusUrl }), () => trackPage({ t: pages.of(request).t, view: found, statusUrl }));
  });
  scope.get('/track/:token/status', async (request) => ({ status: (await view(request)).found.status }));
}
