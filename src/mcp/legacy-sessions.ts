import { randomUUID } from 'node:crypto';
import { declaresApps, isObject } from './apps/app.ts';

// A 2025-era client declares its capabilities once, in `initialize`; a 2026-07-28 client on
// every request. We serve the 2025 era statelessly (any instance answers any request), so a
// later tools/call would not know what the client declared. What we need of it (whether the
// client takes URL elicitations, whether it shows MCP Apps) travels in the session id the
// initialize answer gives: the client sends it back on every request (Mcp-Session-Id), whichever
// instance answers. It is the client's own declaration echoed, so it needs no protecting; the
// random part keeps it unique.

/** The mark in a session id of a client that declared URL-mode elicitation. */
const URL_ELICITATION = 'elicitation-url';
/** The mark in a session id of a client that declared MCP Apps (io.modelcontextprotocol/ui). */
const MCP_APPS = 'mcp-apps';

type Json = Record<string, unknown>;

/** What a 2025-era client declared at initialize, as far as the tools need it. */
export interface LegacyClient {
  declaredUrlElicitation: boolean;
  declaredApps: boolean;
}

/** The capabilities a 2025-era initialize declares; undefined for any other message. */
export function initializeCapabilities(body: unknown): Json | undefined {
  if (!isObject(body) || body.method !== 'initialize' || !isObject(body.params)) return undefined;
  const { capabilities } = body.params;
  return isObject(capabilities) ? capabilities : {};
}

/**
 * The session id to answer a 2025-era initialize with, when there is something to remember (its
 * client declared URL elicitation or MCP Apps); undefined for anything else, which stays sessionless.
 */
export function legacySessionId(body: unknown): string | undefined {
  const capabilities = initializeCapabilities(body);
  if (capabilities === undefined) return undefined;
  const elicitation = capabilities.elicitation;
  // URL elicitation's mark goes last: an instance from before MCP Apps looks for it at the end (a rolling deploy).
  const marks = [
    ...(declaresApps(capabilities) ? [MCP_APPS] : []),
    ...(isObject(elicitation) && isObject(elicitation.url) ? [URL_ELICITATION] : []),
  ];
  return marks.length === 0 ? undefined : [randomUUID(), ...marks].join('.');
}

/** What the client of a 2025-era session declared at initialize (nothing, without a session). */
export function legacyClient(sessionId: string | string[] | undefined): LegacyClient {
  const marks = typeof sessionId === 'string' ? sessionId.split('.').slice(1) : [];
  return { declaredUrlElicitation: marks.includes(URL_ELICITATION), declaredApps: marks.includes(MCP_APPS) };
}
