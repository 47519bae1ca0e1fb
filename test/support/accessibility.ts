import axe from 'axe-core';
import type { Page } from 'playwright-core';

// axe-core in a real page: injected through the DevTools protocol (so a page's CSP, which
// forbids inline script, does not stop it) and run on the whole document.

export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** The page's serious and critical accessibility violations, as axe-core finds them. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run({ exclude: [] }, { resultTypes: ['violations'] }));
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact!, help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')) }));
}
