// Text that leaves the process where people or the database keep it (a processor's problem,
// scan errors, forward failures, notice answers): every URL cut to its origin. An RPC URL often
// carries its API key in the path (/v2/KEY), the query (?apikey=) or the credentials (user:key@).

/** The longest problem text kept or shown. */
export const PUBLIC_TEXT_MAX = 300;

// A scheme and everything up to a space, a quote, a bracket or a backslash (a URL inside JSON).
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\]+/gi;

/** `text` with every URL in it cut to its origin (scheme, host and port: no credentials, path, query or fragment). */
export function withoutUrlSecrets(text: string): string {
  // JSON escapes a slash as \/: read it as one, so an escaped URL is cut like any other.
  return text.replaceAll('\\/', '/').replace(URL_PATTERN, (match) => {
    // Punctuation closing a sentence or a clause ("http://host:8545: refused") is not part of the URL.
    const url = match.replace(/[.,;:!?)\]}]+$/, '');
    return cutToOrigin(url) + match.slice(url.length);
  });
}

function cutToOrigin(url: string): string {
  try {
    const parsed = new URL(url);
    // A scheme URL has no origin of its own ("null"): say the host alone, or nothing.
    return parsed.origin !== 'null' ? parsed.origin : parsed.host ? `${parsed.protocol}//${parsed.host}` : '(a URL)';
  } catch {
    return '(a URL)';
  }
}

/** The first line of `text` (or an error's message), without URL secrets, at most `max` characters. */
export function publicText(text: unknown, max = PUBLIC_TEXT_MAX): string {
  const raw = text instanceof Error ? text.message : String(text);
  const line = withoutUrlSecrets(raw.split('\n')[0] ?? '').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
