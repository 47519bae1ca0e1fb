import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.ts';
import { receiveProcessorNotice } from '../processor/notices.ts';

export const PROCESSOR_NOTICES_PATH = '/processor/notices';

/**
 * The payment processor's notices about Live money. The signature covers the exact bytes
 * received, so this route keeps the raw body and parses it only after verifying.
 */
export async function registerProcessorNotices(app: FastifyInstance, context: AppContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post(PROCESSOR_NOTICES_PATH, async (request) => {
      const raw = typeof request.body === 'string' ? request.body : '';
      const signature = request.headers['processor-signature'];
      const result = await receiveProcessorNotice(context, raw, typeof signature === 'string' ? signature : undefined);
      return { received: true, outcome: result.outcome, reason: result.reason, payment_id: result.paymentId };
    });
  });
}
