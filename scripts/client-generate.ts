import { writeFile } from 'node:fs/promises';
import { generateClient } from '../client/scripts/generate.ts';
import { openApiDocument } from '../src/http/openapi.ts';
import { operations } from '../src/operations.ts';

// `npm run client:generate`: the OpenAPI document the service serves, built from the operation
// registry without a database or a server, then the client's generated files from it. The base
// URL is fixed so the output depends on the operations alone.

const GENERATION_BASE_URL = 'https://payments.example.com';

const files = await generateClient(openApiDocument(operations, GENERATION_BASE_URL));
for (const [name, text] of Object.entries(files)) {
  await writeFile(new URL(`../client/src/${name}`, import.meta.url), text);
  console.log(`client/src/${name}`);
}
