// JSON kept as text (a stored event body: the exact bytes webhooks delivered), to be written out
// as that text rather than parsed only to be written again. A transport that writes JSON embeds
// it with stringifyWithText; one that needs objects (MCP's structuredContent) parses the result.

export class JsonText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** Whether `value` is JsonText, or a page whose items are (the shapes verbs answer with it). */
export function holdsJsonText(value: unknown): boolean {
  if (value instanceof JsonText) return true;
  const data = typeof value === 'object' && value !== null ? (value as { data?: unknown }).data : undefined;
  return Array.isArray(data) && data[0] instanceof JsonText;
}

/**
 * JSON.stringify, writing each JsonText inside `value` as its text. (A marker with NUL cannot
 * clash with a value: no text the service stores or answers holds NUL.)
 */
export function stringifyWithText(value: unknown): string {
  const texts: string[] = [];
  const json = JSON.stringify(value, (_key, item: unknown) => (item instanceof JsonText ? `\u0000${texts.push(item.text) - 1}\u0000` : item));
  return texts.length === 0 ? json : json.replace(/"\\u0000(\d+)\\u0000"/g, (_match, index: string) => texts[Number(index)]!);
}
