import { expect, it } from 'vitest';
import { ApiError, errorBody, errorResponse } from '../../src/core/errors.ts';
import { audienceOf } from '../../src/core/wording.ts';

// One error, two readers: REST callers read `rest` (the message they always had), tool callers
// `tool`; a plain message is the same for both, unless its code names a REST-only request part.

it('renders the message in the words of whoever reads it', () => {
  const error = new ApiError('invalid_state', { rest: 'POST /v1/x first.', tool: 'Call do_x first.' });
  expect(error.message).toBe('POST /v1/x first.');
  expect(errorBody(error)).toEqual({ error: { code: 'invalid_state', message: 'POST /v1/x first.' } });
  expect(errorBody(error, 'tool')).toEqual({ error: { code: 'invalid_state', message: 'Call do_x first.' } });
  expect(errorBody(new ApiError('not_found', 'No link.'), 'tool').error.message).toBe('No link.');
  // An Idempotency-Key's format is a tool argument's: its schema's REST sentence is not shown to tools.
  const key = new ApiError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 120 printable ASCII characters.', 'idempotency_key');
  expect(errorBody(key).error.message).toBe('Idempotency-Key must be 1 to 120 printable ASCII characters.');
  expect(errorBody(key, 'tool').error.message).toBe('idempotency_key must be 1 to 120 printable ASCII characters, not blank.');
});

it('answers in the tools\' words only to a request that prefers them, and says so', () => {
  expect([undefined, '', 'return=minimal', 'wording=rest', ['respond-async']].map(audienceOf)).toEqual(['rest', 'rest', 'rest', 'rest', 'rest']);
  expect(['wording=tool', 'return=minimal, Wording=Tool', ['respond-async', 'wording=tool']].map(audienceOf)).toEqual(['tool', 'tool', 'tool']);
  const error = new ApiError('invalid_state', { rest: 'REST', tool: 'tool' });
  const options = { credentialSent: true, metadataUrl: 'https://example.test/m' };
  expect(errorResponse(error, options)).toMatchObject({ headers: { 'cache-control': 'no-store' }, body: { error: { message: 'REST' } } });
  expect(errorResponse(error, options).headers['preference-applied']).toBeUndefined();
  expect(errorResponse(error, { ...options, audience: 'tool' })).toMatchObject({ headers: { 'preference-applied': 'wording=tool' }, body: { error: { message: 'tool' } } });
});
