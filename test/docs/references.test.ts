import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { REFERENCES, settingsCoverage } from '../../scripts/reference-docs.ts';

// The references in docs/reference/ are generated from the code (scripts/reference-docs.ts): a
// page that differs from what the code makes now is stale. `npm run docs:generate` writes them.

describe('the generated references', () => {
  for (const [path, make] of Object.entries(REFERENCES)) {
    it(`${path} is what the code makes now (npm run docs:generate)`, async () => {
      expect(await readFile(new URL(`../../${path}`, import.meta.url), 'utf8')).toBe(make());
    });
  }
});

it('documents every variable the configuration reads, each once (src/core/config-docs.ts)', () => {
  expect(settingsCoverage()).toEqual({ missing: [], twice: [], unknown: [] });
});
