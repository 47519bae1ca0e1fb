import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { REFERENCES } from './reference-docs.ts';

// `npm run docs:generate`: the references in docs/reference/, from the definitions in the code
// (scripts/reference-docs.ts). test/docs/references.test.ts fails while a committed page is stale.

for (const [path, make] of Object.entries(REFERENCES)) {
  const file = new URL(`../${path}`, import.meta.url);
  await mkdir(dirname(file.pathname), { recursive: true });
  await writeFile(file, make());
  console.log(path);
}
