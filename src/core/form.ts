// application/x-www-form-urlencoded bodies, for the scopes that take them (the OAuth endpoints
// and the pages' forms); the API itself takes JSON only. A name given twice keeps every value.

export type Form = Record<string, string | string[]>;

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

function parseForm(text: string): Form {
  // No prototype: a field named `constructor` or `__proto__` is a field, not an inherited value.
  const form = Object.create(null) as Form;
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = form[name];
    form[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return form;
}

/** A content-type parser (Fastify's callback shape) for form bodies. */
export function formBodyParser(_request: unknown, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void {
  done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
}

/** One field of a form: its only value, or undefined when absent or given more than once. */
/** Whether a request's Content-Type is form encoding (parameters such as charset aside). */
export function isFormEncoded(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === FORM_CONTENT_TYPE;
}

export function formField(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' ? value : undefined;
}
