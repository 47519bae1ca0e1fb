import { lookup, Resolver } from 'node:dns/promises';

// A resolver that stalls must not hold a request: past this, the name counts as not resolving now.
const LOOKUP_TIMEOUT_MS = 2_000;

/**
 * A host name's addresses, IPv4 and IPv6. Asked of the DNS servers directly (c-ares, cancelled at
 * the time limit), not through getaddrinfo, whose calls occupy libuv's small thread pool until
 * the system resolver gives up: a merchant's slow name must not hold up everyone's sends.
 * `localhost` names come from the hosts file.
 */
export async function resolveHost(hostname: string): Promise<string[]> {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    return (await lookup(hostname, { all: true, verbatim: true })).map((answer) => answer.address);
  }
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS / 2, tries: 1 });
  const timer = setTimeout(() => resolver.cancel(), LOOKUP_TIMEOUT_MS);
  try {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const answers = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (answers.length === 0) throw v4.status === 'rejected' ? v4.reason : new Error(`${hostname} has no addresses`);
    return answers;
  } finally {
    clearTimeout(timer);
  }
}
