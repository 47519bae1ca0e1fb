import { readFileSync } from 'node:fs';

// Examples in the OpenAPI document are real requests and answers: test/http/openapi-examples.test.ts
// runs a journey against the service and records them into openapi-examples.json, and fails when
// what the service answers today differs from the file (ids, times and other volatile values
// aside). So an example cannot drift from what the API does.

/** One request as sent and the answer as received. */
export interface Exchange {
  request: { method: string; path: string; headers?: Record<string, string>; body?: unknown };
  status: number;
  response: unknown;
}

export interface Examples {
  /** Per operation (its name), the exchanges recorded: its usual answer first, then others (a replay, a conflict, a refusal). */
  operations: Record<string, Exchange[]>;
  /** Per status, an error answer of any operation: the examples of the shared error responses. */
  errors: Record<string, Exchange>;
  /** Per event type, the body of a real delivery. */
  webhooks: Record<string, unknown>;
}

export const EXAMPLES_FILE = new URL('./openapi-examples.json', import.meta.url);

/** The recorded examples (empty where none were recorded). */
export function loadExamples(): Examples {
  const recorded = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Partial<Examples>;
  return { operations: recorded.operations ?? {}, errors: recorded.errors ?? {}, webhooks: recorded.webhooks ?? {} };
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The exchange's request as a curl command against `baseUrl`, the credential taken from $SECRET_KEY. */
export function curlOf(exchange: Exchange, baseUrl: string): string {
  const { method, path, headers = {}, body } = exchange.request;
  const lines = [`curl -X ${method} ${shellQuote(`${baseUrl}${path}`)}`, '-H "Authorization: Bearer $SECRET_KEY"'];
  for (const [name, value] of Object.entries(headers)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (body !== undefined) lines.push("-H 'Content-Type: application/json'", `-d ${shellQuote(JSON.stringify(body))}`);
  return lines.join(' \\\n  ');
}
