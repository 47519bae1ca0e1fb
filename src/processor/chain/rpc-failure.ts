import { publicText } from '../../core/public-text.ts';

// Why an RPC URL did not answer, in the words an operator acts on (connection refused, timed
// out, DNS lookup failed, HTTP status 401), read from what viem, undici and fetch throw: viem's
// HttpRequestError (its `status`), TimeoutError, RpcRequestError, and fetch's `cause.code`.

const CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  ENOTFOUND: 'DNS lookup failed',
  EAI_AGAIN: 'DNS lookup failed',
  EAI_FAIL: 'DNS lookup failed',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out',
  UND_ERR_BODY_TIMEOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate for another host',
};

type Cause = { name?: string; code?: unknown; status?: unknown; message?: string; shortMessage?: string; cause?: unknown; errors?: unknown[] };

/** The URL's origin alone: never its path, query or credentials (an API key is often there). */
export function rpcOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(an RPC URL)';
  }
}

/** Why a request to an RPC URL failed, in a few words; never the URL itself. */
export function rpcFailure(error: unknown): string {
  for (let cause = error as Cause | undefined; cause && typeof cause === 'object'; cause = cause.cause as Cause | undefined) {
    if (typeof cause.code === 'string' && CODES[cause.code]) return CODES[cause.code]!;
    // Connecting to a name with several addresses fails with each address's error.
    const first = cause.errors?.[0] as Cause | undefined;
    if (typeof first?.code === 'string' && CODES[first.code]) return CODES[first.code]!;
    if (cause.name === 'TimeoutError') return 'timed out';
    if (cause.name === 'HttpRequestError' && typeof cause.status === 'number') return `HTTP status ${cause.status}`;
    if (cause.name === 'RpcRequestError' && typeof cause.code === 'number') return `the node answered error ${cause.code}: ${publicText(cause.shortMessage ?? cause.message ?? '', 120)}`;
  }
  const text = error as Cause | undefined;
  return publicText(text?.shortMessage ?? (error instanceof Error ? error.message : String(error)), 120);
}
