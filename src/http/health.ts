import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { bearerCredential } from '../auth/authenticate.ts';
import { ApiError, errorBody } from '../core/errors.ts';
import type { Metrics } from '../core/metrics.ts';
import type { Secret } from '../core/secret.ts';

// What operators and orchestrators ask of a process: is it alive (/healthz), may it take work
// (/readyz), and its Prometheus metrics (/metrics). None is rate limited or takes a credential
// but the metrics token; none says more than ok or not per check (no versions, hosts or errors).

/** Each check's word ("ok", "unreachable", "pending", ...), and whether all are ok. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, string>;
}

export type Readiness = () => Promise<ReadinessReport>;

/** Who may read /metrics: anyone who reaches the listener, a bearer of the token, or nobody (no route). */
export type MetricsAccess = 'open' | { token: Secret } | 'none';

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz', metrics: '/metrics' } as const;

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The Authorization header carries exactly the token (compared in constant time). */
function bearerMatches(authorization: string | undefined, token: Secret): boolean {
  const sent = bearerCredential(authorization);
  return sent !== null && timingSafeEqual(digest(sent), digest(token.reveal()));
}

export async function healthRoutes(scope: FastifyInstance, options: { readiness: Readiness; metrics: Metrics; metricsAccess: MetricsAccess }): Promise<void> {
  const { readiness, metrics, metricsAccess } = options;
  scope.get(HEALTH_PATHS.live, async () => ({ status: 'ok' }));
  scope.get(HEALTH_PATHS.ready, async (_request, reply) => {
    const { ready, checks } = await readiness();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
  if (metricsAccess === 'none') return;
  scope.get(HEALTH_PATHS.metrics, async (request, reply) => {
    if (metricsAccess !== 'open' && !bearerMatches(request.headers.authorization, metricsAccess.token)) {
      reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return reply.code(401).send(errorBody(new ApiError('invalid_token', 'Send the metrics token (METRICS_TOKEN) as a bearer token.')));
    }
    const { contentType, text } = await metrics.exposition();
    return reply.type(contentType).send(text);
  });
}
