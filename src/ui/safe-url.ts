// The URLs a page may link, load or post to: relative ones, http:, https: and mailto:. Anything
// else (javascript:, data:, vbscript:, …) is replaced by an address that goes nowhere.

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);

/** Where a refused URL points instead (after Closure's `about:invalid#zClosurez`). */
export const BLOCKED_URL = 'about:invalid#blocked';

/**
 * The scheme as a browser reads it: URL parsers drop tabs and newlines anywhere and spaces and
 * control characters at the ends, and schemes ignore case; dropping every such character is
 * stricter still. No scheme means a relative URL.
 */
function schemeOf(url: string): string | undefined {
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
  return /^([a-z][a-z0-9+.-]*):/.exec(compact)?.[1];
}

export function isSafeUrl(url: string): boolean {
  const scheme = schemeOf(url);
  return scheme === undefined || ALLOWED_SCHEMES.has(scheme);
}

export function safeUrl(url: string): string {
  return isSafeUrl(url) ? url : BLOCKED_URL;
}
