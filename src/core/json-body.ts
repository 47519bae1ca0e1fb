import secureJson from 'secure-json-parse';
import { ApiError } from './errors.ts';

// JSON request bodies: parsed with prototype-poisoning protection; an empty body is no body (POST
// .../cancel takes none); text PostgreSQL cannot store (NUL, a lone surrogate) is refused as bad JSON.
const NUL_ESCAPE = /\\u0000/i;
// Decoded UTF-8 is always well formed: only a \\u escape of a surrogate can make a lone one.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** How deep a body may nest arrays and objects: far more than any request needs, far less than a stack holds. */
export const MAX_NESTING = 64;

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count), stopping past `limit`. */
function nesting(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index += 1; // a backslash escapes the next character
      else if (code === 34) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 91 || code === 123) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (code === 93 || code === 125) {
      depth -= 1;
    }
  }
  return deepest;
}

/** The body's value (undefined for an empty body), or an ApiError invalid_json. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (NUL_ESCAPE.test(text)) throw new ApiError('invalid_json', 'The body must not contain the NUL character (\\u0000).');
  // Bounded before anything walks the value (checks, messages that quote it), so nothing recurses deep.
  if (nesting(text, MAX_NESTING) > MAX_NESTING) {
    throw new ApiError('invalid_json', `The body nests arrays and objects more than ${MAX_NESTING} levels deep.`);
  }
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

/** Every string (and key) is well-formed UTF-16: a lone surrogate has no UTF-8 form to store. (Walked without recursion.) */
function wellFormed(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (!item.isWellFormed()) return false;
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, inner] of Object.entries(item)) {
        if (!key.isWellFormed()) return false;
        pending.push(inner);
      }
    }
  }
  return true;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
