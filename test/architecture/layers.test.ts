import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { expect, it } from 'vitest';

// The layer rules of .dependency-cruiser.cjs through dependency-cruiser's own API: the real src/
// keeps every rule, and each rule catches a small tree that breaks it. A rule whose pattern
// matches nothing would pass `npm run check:layers` just as quietly as a rule kept.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** One tree per case, each with its own src/, cruised as if it were the project. */
const FIXTURES = path.join(ROOT, 'test/fixtures/layers');

const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));

type Violation = ICruiseResult['summary']['violations'][number];

/** `rule: from → to`: which rule, and the import (or the folders) breaking it. */
const edge = (violation: Violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`;

/** The edge with the whole cycle when there is one, as a person fixing it needs it. */
function readable(violation: Violation): string {
  const cycle = violation.cycle?.length ? ` (cycle: ${[violation.from, ...violation.cycle.map((step) => step.name)].join(' → ')})` : '';
  return `${edge(violation)}${cycle}`;
}

/** The violations of the src/ (and client/, where there is one) under `baseDir`. */
async function violationsIn(baseDir: string): Promise<Violation[]> {
  const roots = ['src', 'client'].filter((folder) => existsSync(path.join(baseDir, folder)));
  const { output } = await cruise(roots, { ...options, baseDir });
  if (typeof output === 'string') throw new Error(`dependency-cruiser answered text, not a result: ${output}`);
  return output.summary.violations;
}

it('src/ and client/ keep every layer rule', async () => {
  expect((await violationsIn(ROOT)).map(readable)).toEqual([]);
});

it.each([
  ['core-imports-db', 'core-imports-only-lower-layers: src/core/money.ts → src/db/database.ts'],
  ['core-type-imports-auth', 'core-imports-only-lower-layers: src/core/clock.ts → src/auth/principal.ts'],
  ['db-imports-auth', 'db-imports-only-lower-layers: src/db/owned.ts → src/auth/principal.ts'],
  ['mail-imports-resources', 'mail-imports-only-lower-layers: src/mail/outbox.ts → src/resources/webhook-endpoints/notify-added.ts'],
  ['transport-imports-transport', 'no-transport-imports-another: src/dashboard/routes.ts → src/oauth/routes.ts'],
  ['imports-the-top', 'nothing-imports-the-top: src/resources/payments/list.ts → src/operations.ts'],
  ['two-way-folders', 'no-two-way-folders: src/resources/a → src/resources/b'],
  ['unknown-folder', 'known-folders-only: src/helpers/format.ts → src/core/money.ts'],
  ['unknown-folder-imported-by-the-top', 'no-imports-of-unknown-folders: src/main.ts → src/helpers/format.ts'],
  ['client-imports-src', 'client-imports-only-itself: client/src/money.ts → src/core/money.ts'],
])('catches the tree %s', async (fixture, expected) => {
  expect((await violationsIn(path.join(FIXTURES, fixture))).map(edge)).toContain(expected);
});
