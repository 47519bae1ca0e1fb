import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../core/errors.ts';

// JSON bodies: parsed with prototype-poisoning protection; an empty body is no body (POST
// .../cancel takes none); text PostgreSQL cannot store (NUL) is refused as bad JSON.
const NUL_ESCAPE = /\\u0000/i;
// Decoded UTF-8 is always well formed: only a \\u escape of a surrogate can make a lone one.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (_request: unknown, body: string | Buffer, done: (error: Error | null, value?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (NUL_ESCAPE.test(text)) return done(new ApiError('invalid_json', 'The body must not contain the NUL character (\\u0000).'), undefined);
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      return done(new ApiError('invalid_json', 'The body is not valid JSON.'), undefined);
    }
    if (SURROGATE_ESCAPE.test(text) && !wellFormed(parsed)) return done(new ApiError('invalid_json', 'The body has text that is not valid Unicode (a lone surrogate such as \\ud800).'), undefined);
    done(null, parsed);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parse);
}

/** Every string (and key) is well-formed UTF-16: a lone surrogate has no UTF-8 form to store. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) if (!key.isWellFormed() || !wellFormed(item)) return false;
  }
  return true;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
