import secureJson from 'secure-json-parse';
import { ApiError } from './errors.ts';

// JSON request bodies: parsed with prototype-poisoning protection; an empty body is no body (POST
// .../cancel takes none); text PostgreSQL cannot store (NUL, a lone surrogate) is refused as bad JSON.
const NUL_ESCAPE = /\\u0000/i;
// Decoded UTF-8 is always well formed: only a \\u escape of a surrogate can make a lone one.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The body's value (undefined for an empty body), or an ApiError invalid_json. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (NUL_ESCAPE.test(text)) throw new ApiError('invalid_json', 'The body must not contain the NUL character (\\u0000).');
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw new ApiError('invalid_json', 'The body is not valid JSON.');
  }
  if (SURROGATE_ESCAPE.test(text) && !wellFormed(parsed)) {
    throw new ApiError('invalid_json', 'The body has text that is not valid Unicode (a lone surrogate such as \\ud800).');
  }
  return parsed;
}

/** A content-type parser (Fastify's callback shape) for JSON bodies. */
export function jsonBodyParser(_request: unknown, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void {
  try {
    done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
  } catch (error) {
    done(error as Error, undefined);
  }
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
