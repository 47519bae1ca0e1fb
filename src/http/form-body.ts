import type { FastifyInstance, FastifyRequest } from 'fastify';

// application/x-www-form-urlencoded bodies, for the scopes that take them (the OAuth endpoints
// and the dashboard's forms); the API itself takes JSON only. A name given twice keeps every value.

export type Form = Record<string, string | string[]>;

export function parseForm(text: string): Form {
  const form: Form = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = form[name];
    form[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return form;
}

/** Registers the form parser in an encapsulated scope. */
export function registerFormBody(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void) => {
    done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
  });
}
