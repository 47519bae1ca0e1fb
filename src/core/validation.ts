import { z } from 'zod';
import { ApiError, isErrorCode, type ErrorCode } from './errors.ts';

// Zod carries only a message per issue, so a schema that must answer with one of the spec's
// error codes puts the code in front of its message. One schema then gives the documented
// type (OpenAPI, MCP) and the precise code (section 7).
const SEPARATOR = ' :: ';

export function coded(code: ErrorCode, message: string): { error: string } {
  return { error: `${code}${SEPARATOR}${message}` };
}

/** Turns the first zod issue into the API error (code, sentence, field path). */
export function toApiError(error: z.ZodError, fallback: ErrorCode = 'invalid_request'): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError(fallback, 'The request is not valid.');
  // An unknown key inside a strict object (collect) is named itself, e.g. collect.colour.
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const field = path.map(String).join('.') || undefined;
  const at = issue.message.indexOf(SEPARATOR);
  if (at > 0) {
    const code = issue.message.slice(0, at);
    if (isErrorCode(code)) return new ApiError(code, issue.message.slice(at + SEPARATOR.length), field);
  }
  const message = field ? `${field}: ${issue.message}` : issue.message;
  return new ApiError(fallback, message, field);
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw toApiError(result.error);
  return result.data;
}

const HIGH_SURROGATE = /[\ud800-\udbff]/;

/** Length in characters as people count them (code points), not UTF-16 units. */
export function characters(text: string): number {
  // Most text has no surrogate at all: then each UTF-16 unit is a character (every field checks this).
  if (!HIGH_SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

// Control characters other than tab, line feed and carriage return; NUL can never be stored.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Whether any string inside `value` has a control character (NUL can never be stored). */
/**
 * Invisible formatting: bidirectional embeddings, overrides, isolates and marks, zero-width
 * characters, the byte order mark. Text someone else reads (a client's name on an approval page)
 * must not carry them: an override can reverse the words that follow it on the page.
 */
const INVISIBLE_FORMATTING = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

/** Whether any string (or key) in `value` holds invisible formatting characters. (Walked without recursion.) */
export function hasInvisibleFormatting(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (INVISIBLE_FORMATTING.test(item)) return true;
    } else if (Array.isArray(item)) {
      for (const inner of item) pending.push(inner);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, inner] of Object.entries(item)) pending.push(key, inner);
    }
  }
  return false;
}

export function hasControlCharacters(value: unknown): boolean {
  // Walked without recursion: a value's depth is whatever a request made it.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (CONTROL.test(item) || !item.isWellFormed()) return true;
    } else if (Array.isArray(item)) {
      for (const inner of item) pending.push(inner);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, inner] of Object.entries(item)) pending.push(key, inner);
    }
  }
  return false;
}
