import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.ts';
import { readPayerView } from '../../resources/payer/view.ts';
import type { PayerPages } from '../requests.ts';
import { trackPage } from '../views/track.ts';

/** A payment link's tracking page (spec 2.1 tracking_url): only links have one. */
export function registerTrackRoutes(scope: FastifyInstance, pages: PayerPages): void {
  scope.get('/track/:id', async (request, reply) => {
    const view = await readPayerView(pages.context.db, (request.params as { id: string }).id, pages.context.clock.now());
    if (!view || view.source !== 'payment_link') throw new ApiError('not_found', 'There is no payment link at this address.');
    return pages.send(request, reply, 200, trackPage({ t: pages.of(request).t, view }));
  });
}
