import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { apiReference } from '../src/http/docs.ts';
import { openApiDocument } from '../src/http/openapi.ts';
import { operations } from '../src/operations.ts';
import { heldForStaffMail } from '../src/dashboard/mails/held-payment.ts';
import { heldNoticeMail, receiptMail } from '../src/pages/mails/payment.ts';
import { renderPage } from '../src/ui/index.ts';
import { PAGE_STATES, realistic, type PageState } from '../test/pages/states.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../test/support/chromium.ts';
import { ITEMS, mailFacts } from '../test/support/mail-facts.ts';
import { servePages } from '../test/support/serve-pages.ts';

// npm run screenshots: every page in every state of test/pages/states.ts, with a coffee roaster's
// data, photographed in headless Chromium into docs/screenshots/ (<state>-<theme>-<width>.png),
// with a README listing them. Every state light at 1280px; the main pages also light at 360px
// and dark at 1280px; and the API reference (/docs) at both widths. Not part of npm test: run it
// after changing a page, and look at the result (`-- --reference` photographs the reference alone;
// SCREENSHOTS_ONLY=<prefix>,… only the states whose names start with it, keeping the other photographs).

const OUT = path.join(import.meta.dirname, '../docs/screenshots');

interface View {
  colorScheme: 'light' | 'dark';
  width: number;
}

const DESKTOP: View = { colorScheme: 'light', width: 1280 };
const VIEWS: readonly View[] = [DESKTOP, { colorScheme: 'light', width: 360 }, { colorScheme: 'dark', width: 1280 }];

const viewsOf = (state: PageState) => (state.main ? VIEWS : [DESKTOP]);
// SCREENSHOTS_ONLY=pay-,checkout: only the states whose name starts with one of these (their files
// alone are replaced; the reference and README.md are left as they are).
const ONLY = process.env.SCREENSHOTS_ONLY?.split(',').map((prefix) => prefix.trim()).filter(Boolean);
const chosen = (state: PageState) => !ONLY || ONLY.some((prefix) => state.name.startsWith(prefix));
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

/** The HTML of the mails (pages/mails, dashboard/mails), as a mail client's web view shows it. */
const MAIL_SHOTS = [
  { name: 'mail-receipt', shows: 'the buyer\'s receipt of a checkout with two lines, in Test mode', html: () => receiptMail(mailFacts({ livemode: false, items: ITEMS })).html, widths: [1280, 360] },
  { name: 'mail-held-buyer', shows: 'the buyer\'s notice that their underpaid payment is held, in German', html: () => heldNoticeMail(mailFacts({ language: 'de' })).html, widths: [1280, 360] },
  { name: 'mail-held-staff', shows: 'the mail to a business\'s owners and developers about a held payment', html: () => heldForStaffMail(mailFacts()).html, widths: [1280, 360] },
] as const;
const mailFile = (shot: (typeof MAIL_SHOTS)[number], width: number) => `${shot.name}-light-${width}.png`;

async function mailShots(browser: Browser): Promise<number> {
  let written = 0;
  for (const shot of MAIL_SHOTS) {
    if (ONLY && !ONLY.some((prefix) => shot.name.startsWith(prefix))) continue;
    for (const width of shot.widths) {
      const page = await browser.newPage({ viewport: { width, height: width > 360 ? 800 : 740 } });
      await page.setContent(shot.html());
      await page.screenshot({ path: path.join(OUT, mailFile(shot, width)), fullPage: true });
      await page.close();
      written += 1;
    }
  }
  return written;
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
  const ours = new Set(PAGE_STATES.filter(chosen).flatMap((state) => viewsOf(state).map((view) => fileOf(state, view))));
  for (const file of readdirSync(OUT)) if (file.endsWith('.png') && (!ONLY || ours.has(file))) rmSync(path.join(OUT, file));
  const server = await servePages(PAGE_STATES.map((state) => {
    const { page, viewer } = state.render(realistic);
    return renderPage(page, viewer);
  }));
  const browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
  let mailed = 0;
  try {
    for (const view of VIEWS) {
      const page = await browser.newPage({ viewport: { width: view.width, height: view.width > 360 ? 800 : 740 } });
      await page.emulateMedia({ colorScheme: view.colorScheme });
      for (const [index, state] of PAGE_STATES.entries()) {
        if (!chosen(state) || !viewsOf(state).includes(view)) continue;
        await page.goto(server.url(index));
        await page.screenshot({ path: path.join(OUT, fileOf(state, view)), fullPage: true });
      }
      await page.close();
    }
    mailed = await mailShots(browser);
    if (!ONLY) await referenceShots(browser);
  } finally {
    await browser.close();
    await server.app.close();
  }
  if (ONLY) {
    console.log(`Wrote ${ours.size + mailed} screenshots to ${path.relative(process.cwd(), OUT)}/.`);
    return;
  }
  writeFileSync(path.join(OUT, 'README.md'), readme());
  console.log(`Wrote ${PAGE_STATES.filter(chosen).reduce((count, state) => count + viewsOf(state).length, mailed)} screenshots and README.md to ${path.relative(process.cwd(), OUT)}/.`);
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
${MAIL_SHOTS.map((shot) => `| ${shot.name} | ${shot.shows} (its HTML alternative) | ${shot.widths.map((width) => `[light ${width}px](${mailFile(shot, width)})`).join(' · ')} |`).join('\n')}
| api-reference | the API reference at /docs (Redoc, from the OpenAPI document): an operation with its request and response examples | ${REFERENCE_SHOTS.map((shot) => `[light ${shot.width}px](${shot.file})`).join(' · ')} |
`;
}

await main();
