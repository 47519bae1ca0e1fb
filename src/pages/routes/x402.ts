import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, asApiError, errorResponse, rateLimited, replyWith } from '../../core/errors.ts';
import { callerGone } from '../../core/caller-gone.ts';
import { payOverX402 } from '../../resources/x402/pay.ts';
import { X402_PATH } from '../../resources/x402/offer.ts';
import type { PayerPages } from '../requests.ts';
import { PayerStartRefused } from '../starts.ts';

// The x402 address of a payment link or checkout session (docs/x402.md): for programs, not
// people, so it answers the API's JSON and the protocol's headers, never a page. It lives with
// the payer pages because it is one: the same payments, the same per-visitor and per-business
// budgets of starts, and the same stranger at the other end.

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

export async function registerX402Routes(scope: FastifyInstance, options: { pages: PayerPages }): Promise<void> {
  const { pages } = options;
  const { context } = pages;
  // A paid retry repeats the first request's method and body: any body is taken and not read.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
  scope.setErrorHandler(async (error, request, reply) => {
    const apiError = error instanceof PayerStartRefused
      ? rateLimited(error.by === 'visitor' ? 'This address passed its share of payment starts a minute' : 'This business passed its payer pages\' payment starts a minute')
      : asApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'x402 request failed');
    // No credential is asked for here: no error of this address names the OAuth metadata.
    return replyWith(reply, errorResponse(apiError, { credentialSent: false, metadataUrl: '' }));
  });
  const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { id } = request.params as { id: string };
    const { email } = request.query as { email?: unknown };
    if (email !== undefined && typeof email !== 'string') throw new ApiError('invalid_email', 'email must be given once, as an email address.', 'email');
    const answer = await payOverX402(context, id, {
      signature: header(request, 'payment-signature'),
      versionOne: header(request, 'x-payment') !== undefined,
      email,
      admit: (payment) => pages.admitStart(request, payment),
      signal: callerGone(request.raw, reply.raw),
    });
    for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
    // Browsers' scripts may read the protocol's headers (the API does not answer CORS preflights).
    reply.header('Access-Control-Expose-Headers', 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, Retry-After');
    return reply.code(answer.status).send(answer.body);
  };
  scope.route({ method: ['GET', 'POST'], url: `${X402_PATH}/:id`, handler });
}
