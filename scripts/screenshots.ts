import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { apiReference } from '../src/http/docs.ts';
import { openApiDocument } from '../src/http/openapi.ts';
import { operations } from '../src/operations.ts';
import { renderPage } from '../src/ui/index.ts';
import { PAGE_STATES, realistic, type PageState } from '../test/pages/states.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../test/support/chromium.ts';
import { servePages } from '../test/support/serve-pages.ts';

// npm run screenshots: every page in every state of test/pages/states.ts, with a coffee roaster's
// data, photographed in headless Chromium into docs/screenshots/ (<state>-<theme>-<width>.png),
// with a README listing them. Every state light at 1280px; the main pages also light at 360px
// and dark at 1280px; and the API reference (/docs) at both widths. Not part of npm test: run it
// after changing a page, and look at the result (`-- --reference` photographs the reference alone,
// `-- --only <state>,<state>` those states alone).

const OUT = path.join(import.meta.dirname, '../docs/screenshots');

interface View {
  colorScheme: 'light' | 'dark';
  width: number;
}

const DESKTOP: View = { colorScheme: 'light', width: 1280 };
const VIEWS: readonly View[] = [DESKTOP, { colorScheme: 'light', width: 360 }, { colorScheme: 'dark', width: 1280 }];

const viewsOf = (state: PageState) => (state.main ? VIEWS : [DESKTOP]);
const fileOf = (state: PageState, view: View) => `${state.name}-${view.colorScheme}-${view.width}.png`;

/** The API reference as the service serves it (the page and the OpenAPI document; no database needed), where each shot opens it. */
const REFERENCE_SHOTS = [
  { file: 'api-reference-light-1280.png', width: 1280, at: '#operation/create_checkout_session' },
  { file: 'api-reference-light-360.png', width: 360, at: '#operation/create_payment_link' },
] as const;

async function referenceShots(browser: Browser): Promise<void> {
  const app = Fastify();
  const document = openApiDocument(operations, 'https://pay.example.com');
  app.get('/v1/openapi.json', async () => document);
  await apiReference(app);
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    for (const shot of REFERENCE_SHOTS) {
      const page = await browser.newPage({ viewport: { width: shot.width, height: shot.width > 360 ? 800 : 740 } });
      await page.goto(`${origin}/docs${shot.at}`);
      await page.getByRole('heading', { name: 'Create payment link' }).first().waitFor();
      await page.waitForTimeout(1000);
      await page.screenshot({ path: path.join(OUT, shot.file) });
      await page.close();
    }
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  if (process.argv.includes('--reference')) {
    const browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
    await referenceShots(browser).finally(() => browser.close());
    writeFileSync(path.join(OUT, 'README.md'), readme());
    console.log(`Wrote ${REFERENCE_SHOTS.length} screenshots of the API reference and README.md.`);
    return;
  }
  // `-- --only a,b`: just those states (after changing a few pages); the others' files stay.
  const only = process.argv.includes('--only') ? new Set((process.argv[process.argv.indexOf('--only') + 1] ?? '').split(',')) : undefined;
  const wanted = (state: PageState) => only === undefined || only.has(state.name);
  if (only === undefined) for (const file of readdirSync(OUT)) if (file.endsWith('.png')) rmSync(path.join(OUT, file));
  const server = await servePages(PAGE_STATES.map((state) => {
    const { page, viewer } = state.render(realistic);
    return renderPage(page, viewer);
  }));
  const browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
  try {
    for (const view of VIEWS) {
      const page = await browser.newPage({ viewport: { width: view.width, height: view.width > 360 ? 800 : 740 } });
      await page.emulateMedia({ colorScheme: view.colorScheme });
      for (const [index, state] of PAGE_STATES.entries()) {
        if (!viewsOf(state).includes(view) || !wanted(state)) continue;
        await page.goto(server.url(index));
        await page.screenshot({ path: path.join(OUT, fileOf(state, view)), fullPage: true });
      }
      await page.close();
    }
    if (only === undefined) await referenceShots(browser);
  } finally {
    await browser.close();
    await server.app.close();
  }
  writeFileSync(path.join(OUT, 'README.md'), readme());
  console.log(`Wrote ${PAGE_STATES.filter(wanted).reduce((count, state) => count + viewsOf(state).length, 0)} screenshots and README.md to ${path.relative(process.cwd(), OUT)}/.`);
}

function readme(): string {
  const rows = PAGE_STATES.map((state) => `| ${state.name} | ${state.shows} | ${viewsOf(state).map((view) => `[${view.colorScheme} ${view.width}px](${fileOf(state, view)})`).join(' · ')} |`);
  return `# Screenshots of every page

Made by \`npm run screenshots\` (scripts/screenshots.ts) from the page states of
test/pages/states.ts, the same states the every-page tests fill with attacks and check with
axe-core. The data is made up: a coffee roaster, Kestrel Coffee Roasters, in Test mode. Files are
named \`<page>-<state>-<theme>-<width>.png\`; every state is shown light at 1280px, the main pages
also at a 360px phone width and in the dark theme. Run the script again after changing a page
(it replaces every file here, this one too) and look at what changed.

| State | What it shows | Screenshots |
| --- | --- | --- |
${rows.join('\n')}
| api-reference | the API reference at /docs (Redoc, from the OpenAPI document): an operation with its request and response examples | ${REFERENCE_SHOTS.map((shot) => `[light ${shot.width}px](${shot.file})`).join(' · ')} |
`;
}

await main();
