import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldForStaffMail } from '../../src/dashboard/mails/held-payment.ts';
import type { MadeMail } from '../../src/mail/payment-mails.ts';
import { heldNoticeMail, receiptMail } from '../../src/pages/mails/payment.ts';
import { axeFindings, VIEWS } from '../support/accessibility.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { ITEMS, mailFacts as facts } from '../support/mail-facts.ts';

// The HTML alternative of every mail (issue 23), opened as a mail client's web view opens it: in
// Chromium, light and dark, on a desktop and a 360px phone. axe-core finds no serious or critical
// violation, the phone never scrolls sideways, nothing is fetched from anywhere, and what a buyer
// or merchant typed is shown as text, never markup.

const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';

const MAILS: Array<{ name: string; mail: MadeMail; hostile?: boolean }> = [
  { name: 'receipt, Live, one line', mail: receiptMail(facts()) },
  { name: 'receipt, Test, in German, with items', mail: receiptMail(facts({ livemode: false, language: 'de', items: ITEMS })) },
  { name: 'held notice to the buyer, underpaid', mail: heldNoticeMail(facts()) },
  { name: 'held notice to the buyer, in German', mail: heldNoticeMail(facts({ language: 'de' })) },
  { name: 'held payment to the staff, Test', mail: heldForStaffMail(facts({ livemode: false })) },
  { name: 'receipt with typed markup everywhere', mail: receiptMail(facts({ description: HOSTILE, business: HOSTILE, items: [{ name: HOSTILE, variant: HOSTILE, quantity: 3, amountMinor: 100 }] })), hostile: true },
  { name: 'held notice to the staff with typed markup', mail: heldForStaffMail(facts({ description: HOSTILE, business: HOSTILE })), hostile: true },
];


let browser: Browser;
const tabs = new Map<string, { page: Page; requested: string[]; dialogs: string[] }>();
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
  for (const view of VIEWS) {
    const page = await browser.newPage({ viewport: { width: view.width, height: 800 } });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    const requested: string[] = [];
    const dialogs: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    tabs.set(`${view.colorScheme} ${view.width}`, { page, requested, dialogs });
  }
}, 600_000);
afterAll(async () => {
  await browser?.close();
});

describe.each(MAILS)('the HTML of the $name', ({ mail, hostile }) => {
  it.each(VIEWS)('passes axe, fits and fetches nothing ($colorScheme, $width px)', async ({ colorScheme, width }) => {
    const tab = tabs.get(`${colorScheme} ${width}`)!;
    tab.requested.length = 0;
    await tab.page.setContent(mail.html, { waitUntil: 'load' });
    const { serious } = await axeFindings(tab.page);
    expect(serious).toEqual([]);
    expect(await tab.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    // The link and the heading a reader looks for, as text.
    expect(await tab.page.locator('h1').count()).toBe(1);
    expect(tab.requested).toEqual([]);
    expect(tab.dialogs).toEqual([]);
    if (hostile) {
      expect(await tab.page.locator('img, script').count()).toBe(0);
      expect(await tab.page.locator('body').innerText()).toContain(HOSTILE);
    }
  });
});

it('links the tracking page and the dashboard by absolute addresses a mail client can follow', async () => {
  const { page } = tabs.get('light 1280')!;
  await page.setContent(receiptMail(facts()).html);
  expect(await page.getByRole('link').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href))).toEqual(['https://pay.example.com/track/trk_4j26tk2EFScSzJD0mWaUrh4L']);
  await page.setContent(heldForStaffMail(facts()).html);
  expect(await page.getByRole('link').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href)))
    .toEqual(['https://pay.example.com/dashboard/businesses/biz_8Hc2LwQ5rT9mXz3vKp7NbY1d/live/payments/pay_2Tq9Lm4Xw7Rk3Vn8Pc5Bz1Hd']);
});
