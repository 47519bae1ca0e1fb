import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../verbs/context.ts';
import { receiveProcessorNotice } from '../resources/processor-notices/receive.ts';
import { MINUTE } from '../core/clock.ts';
import { ApiError, rateLimited } from '../core/errors.ts';
import { WindowCounter } from '../core/rate-limiter.ts';

export const PROCESSOR_NOTICES_PATH = '/processor/notices';

/**
 * The payment processor's notices about Live money. The signature covers the exact bytes
 * received, so this route keeps the raw body and parses it only after verifying.
 */
export async function processorNotices(scope: FastifyInstance, options: { context: AppContext }): Promise<void> {
  const { context } = options;
  // Refused notices are recorded; an address sending many of them is told to wait instead.
  const refusals = new WindowCounter(context.config.rateLimits.unauthenticatedPerMinute, MINUTE, context.clock, context.metrics.refusals('processor_notices'));
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  scope.post(PROCESSOR_NOTICES_PATH, async (request) => {
    const raw = typeof request.body === 'string' ? request.body : '';
    const signature = request.headers['processor-signature'];
    try {
      const result = await receiveProcessorNotice(context, raw, typeof signature === 'string' ? signature : undefined);
      return { received: true, outcome: result.outcome, reason: result.reason, payment_id: result.paymentId };
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_signature' && context.config.rateLimits.enabled && !refusals.take(request.ip)) {
        throw rateLimited(`This address passed the limit of ${context.config.rateLimits.unauthenticatedPerMinute} refused notices a minute`);
      }
      throw error;
    }
  });
}
