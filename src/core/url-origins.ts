// A processor's sentence as people may read it: the first line, each URL cut to its origin (an
// RPC URL's path or query often holds an API key, and credentials may sit before the host), and
// short. Texts that reach a merchant's page or the operator's mail pass through here.

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

export function plainProcessorText(text: string, max = 300): string {
  const line = (text.split('\n')[0] ?? '').trim();
  const cut = line.replace(URL_IN_TEXT, (url) => {
    try {
      const { protocol, host } = new URL(url);
      return host === '' ? '(a URL)' : `${protocol}//${host}`;
    } catch {
      return '(a URL)';
    }
  });
  return cut.length > max ? `${cut.slice(0, max - 1)}…` : cut;
}
