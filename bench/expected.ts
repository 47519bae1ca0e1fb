import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

// What each ratio row is expected to read (issue 32): the figures of the last full run, committed
// in bench/expected.json beside docs/benchmarks.md's table and changed with it, on purpose. A run that
// reads a row more than 15 % below its figure says so in a warning nobody can miss, so a drop
// like the write path's third (0.47 to 0.35 over a wave) no longer lands unnoticed.

const EXPECTED_FILE = fileURLToPath(new URL('./expected.json', import.meta.url));

/** How far below its figure a ratio may read before the run warns: the machine's noise, not a change. */
export const REGRESSION_MARGIN = 0.15;

export interface ExpectedFigures {
  /** When and how the figures were measured (the machine's state). */
  measured: string;
  /** Each ratio row's figure, by the scenario's name. */
  ratios: Record<string, number>;
}

export async function readExpected(): Promise<ExpectedFigures> {
  return JSON.parse(await readFile(EXPECTED_FILE, 'utf8')) as ExpectedFigures;
}

/** The warnings of a run against the figures: each row more than the margin below its own, and each row without one. */
export function compareWithExpected(rows: ReadonlyArray<{ name: string; ratio: number }>, expected: ExpectedFigures): string[] {
  return rows.flatMap((row) => {
    const figure = expected.ratios[row.name];
    if (figure === undefined) return [`NOTE: ${row.name}: no expected figure in bench/expected.json (a new row, or other sizes): add it with docs/benchmarks.md's table.`];
    const floor = figure * (1 - REGRESSION_MARGIN);
    if (row.ratio >= floor) return [];
    const below = Math.round((1 - row.ratio / figure) * 100);
    return [`REGRESSION: ${row.name}: ratio ${row.ratio.toFixed(2)} is ${below} % below the expected ${figure.toFixed(2)} (${expected.measured}); `
      + `more than ${REGRESSION_MARGIN * 100} % below is not the machine's noise: find what moved it, or update bench/expected.json and docs/benchmarks.md's table on purpose.`];
  });
}

/** Writes this run's ratios as the new figures (BENCH_UPDATE_EXPECTED=1): a deliberate change, committed with docs/benchmarks.md's table. */
export async function updateExpected(rows: ReadonlyArray<{ name: string; ratio: number }>, measured: string): Promise<void> {
  const current = await readExpected();
  const ratios = { ...current.ratios, ...Object.fromEntries(rows.map((row) => [row.name, Number(row.ratio.toFixed(2))])) };
  await writeFile(EXPECTED_FILE, `${JSON.stringify({ measured, ratios }, null, 2)}\n`);
}
