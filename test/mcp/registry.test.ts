import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { expect, it } from 'vitest';
import { MCP_PATH } from '../../src/mcp/http.ts';
import { SERVER_INFO } from '../../src/mcp/tools.ts';

// server.json, the entry for the official MCP registry, against the registry's published schema
// (a copy: no npm package ships it; see test/fixtures/README.md), and against the server it names.

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
const schema = read('test/fixtures/mcp-registry/server.schema.json');
const server = read('server.json');

const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv);
// The schema's own annotation beside the standard `examples`.
ajv.addKeyword('example');
const validate = ajv.compile(schema);

it('validates against the registry\'s published schema, the version it names', () => {
  expect(server.$schema).toBe(schema.$id);
  expect(validate(server), JSON.stringify(validate.errors)).toBe(true);
  // The validator refuses what the registry refuses.
  expect(validate({ ...server, name: 'payment-service' })).toBe(false);
  expect(validate({ ...server, description: 'x'.repeat(101) })).toBe(false);
  expect(validate({ ...server, remotes: [{ type: 'streamable-http', url: 'pay.example.com/mcp' }] })).toBe(false);
});

it('names the server the MCP endpoint announces, at its path, on a host of its namespace', () => {
  expect(server.version).toBe(SERVER_INFO.version);
  const [remote] = server.remotes;
  const url = new URL(remote.url);
  expect(url.pathname).toBe(MCP_PATH);
  expect(url.protocol).toBe('https:');
  // The official registry takes remotes only on the namespace's own domain (com.example → example.com).
  const domain = server.name.split('/')[0].split('.').reverse().join('.');
  expect(url.hostname === domain || url.hostname.endsWith(`.${domain}`)).toBe(true);
  expect(remote.headers.map((header: { name: string; isRequired: boolean }) => [header.name, header.isRequired])).toEqual([['Authorization', false]]);
});
