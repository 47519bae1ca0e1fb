import axe from 'axe-core';
import type { Frame, Page } from 'playwright-core';

// axe-core in a real page: injected through the DevTools protocol (so a page's CSP, which
// forbids inline script, does not stop it) and run on the whole document. A page that checks many
// documents has it preloaded into each (preloadAxe) instead of sent anew with every check.

export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

export interface AxeFindings {
  /** Serious and critical violations. */
  serious: Violation[];
  /** Serious and critical checks axe could not decide, such as the contrast of text whose background it cannot see. */
  undecided: Violation[];
}

/** The views every page and mail is checked in: both themes, on a desktop and a 360px phone. */
export const VIEWS = [
  { colorScheme: 'light', width: 1280 },
  { colorScheme: 'dark', width: 1280 },
  { colorScheme: 'light', width: 360 },
  { colorScheme: 'dark', width: 360 },
] as const;

type Results = Pick<axe.AxeResults, 'violations' | 'incomplete'>;

const worst = (results: axe.Result[]): Violation[] => results
  .filter((result) => result.impact === 'serious' || result.impact === 'critical')
  .map((result) => ({ id: result.id, impact: result.impact!, help: result.help, targets: result.nodes.map((node) => node.target.join(' ')) }));

/** Loads axe-core into every document `page` opens from now on, as the document starts. */
export async function preloadAxe(page: Page): Promise<void> {
  await page.addInitScript(axe.source);
}

/** What axe-core finds in the page. */
export async function axeFindings(page: Page | Frame): Promise<AxeFindings> {
  if (!(await page.evaluate<boolean>("typeof axe === 'object' && typeof axe.run === 'function'"))) await page.evaluate(axe.source);
  const results: Results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run({ exclude: [] }, { resultTypes: ['violations', 'incomplete'] }));
  return { serious: worst(results.violations), undecided: worst(results.incomplete) };
}

/** The page's serious and critical accessibility violations, as axe-core finds them. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  return (await axeFindings(page)).serious;
}
