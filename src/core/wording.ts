// An error's message is read by two kinds of caller: a program calling the REST API, which
// sends paths, headers and bodies, and a model calling the MCP tools, which sends a tool's
// arguments. A message that tells the caller what to do next says it in that caller's terms:
// `call start_checkout_session with id …` for a tool, `POST /v1/checkout_sessions/:id/start` for
// REST. The error carries both; each transport renders the one for its caller.

/** Who reads a message: a REST caller, or an MCP tool caller (over /mcp or the stdio server). */
export type Audience = 'rest' | 'tool';

/** One message in each audience's terms; `rest` is what REST callers always read. */
export interface Wording {
  rest: string;
  tool: string;
}

/**
 * The preference (RFC 7240 `Prefer`) by which an MCP transport that calls the REST API (the
 * stdio server) asks for the tools' wording; the answer then carries `Preference-Applied`.
 */
export const TOOL_WORDING_PREFERENCE = 'wording=tool';

/** The audience a request's Prefer header asks for (REST unless it prefers the tools' wording). */
export function audienceOf(prefer: string | string[] | undefined): Audience {
  const preferences = [prefer ?? []].flat().flatMap((value) => value.split(',')).map((value) => value.trim().toLowerCase());
  return preferences.includes(TOOL_WORDING_PREFERENCE) ? 'tool' : 'rest';
}
