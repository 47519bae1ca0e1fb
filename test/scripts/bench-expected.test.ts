import { expect, it } from 'vitest';
import { compareWithExpected, readExpected } from '../../bench/expected.ts';
import { scaleScenarios } from '../../bench/scale.ts';
import { scenarios } from '../../bench/scenarios.ts';

// Issue 32, must have 4: every ratio row has its committed figure, and a run more than 15 % below
// one says so.

it('bench/expected.json has a figure for every ratio row the bench runs by default', async () => {
  const { ratios } = await readExpected();
  expect([...scenarios, ...scaleScenarios].map((scenario) => scenario.name).filter((name) => ratios[name] === undefined)).toEqual([]);
});

it('warns of a row more than 15 % below its figure, not of one within it, and notes a row without one', () => {
  const expected = { measured: 'then', ratios: { create: 0.8, read: 0.9 } };
  const warnings = compareWithExpected([{ name: 'create', ratio: 0.67 }, { name: 'read', ratio: 0.78 }, { name: 'new row', ratio: 1 }], expected);
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toMatch(/^REGRESSION: create: ratio 0\.67 is 16 % below the expected 0\.80 \(then\)/);
  expect(warnings[1]).toMatch(/^NOTE: new row: no expected figure/);
});
