import { randomUUID } from 'node:crypto';

// A 2025-era client declares its capabilities once, in `initialize`; a 2026-07-28 client on
// every request. We serve the 2025 era statelessly (any instance answers any request), so a
// later tools/call would not know what the client declared. What we need of it (whether the
// client takes URL elicitations) travels in the session id the initialize answer gives: the
// client sends it back on every request (Mcp-Session-Id), whichever instance answers. It is the
// client's own declaration echoed, so it needs no protecting; the random part keeps it unique.

/** The suffix of a session id whose client declared URL-mode elicitation. */
const URL_ELICITATION = '.elicitation-url';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The session id to answer a 2025-era initialize with, when there is something to remember (its
 * client declared URL elicitation); undefined for anything else, which stays sessionless.
 */
export function legacySessionId(body: unknown): string | undefined {
  if (!isObject(body) || body.method !== 'initialize' || !isObject(body.params)) return undefined;
  const { capabilities } = body.params;
  const elicitation = isObject(capabilities) ? capabilities.elicitation : undefined;
  return isObject(elicitation) && isObject(elicitation.url) ? `${randomUUID()}${URL_ELICITATION}` : undefined;
}

/** Whether the client of a 2025-era session declared URL-mode elicitation at initialize. */
export function declaredUrlElicitation(sessionId: string | string[] | undefined): boolean {
  return typeof sessionId === 'string' && sessionId.endsWith(URL_ELICITATION);
}
