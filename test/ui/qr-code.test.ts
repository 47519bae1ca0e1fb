import jsQR from 'jsqr';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRequestUri } from '../../src/core/payment-request.ts';
import { toMicros } from '../../src/resources/orders/derive.ts';
import { html, Layout, QrCode, renderPage } from '../../src/ui/index.ts';
import { seriousViolations } from '../support/accessibility.ts';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.ts';
import { activeParts } from '../support/hostile.ts';
import { servePages, type ServedPages } from '../support/serve-pages.ts';

// The QR code of a real payment request as a wallet's camera meets it: rendered in a page, shown
// by Chromium in the light and the dark theme, photographed, and read back by a decoder that is
// not the library that drew it (jsQR), which must find the very URI.

const URI = paymentRequestUri({ coin: 'polygon_usdc', to: '0x8e23Ee67d1332aD560396262C48ffbB01F93D052', amountMicros: toMicros('25.000000') });
const LABEL = 'QR code: pay 25.000000 USDC on Polygon';
const qrPage = renderPage(Layout({
  title: 'Pay',
  children: html`<div><h1>Pay 25.000000 USDC on Polygon</h1>${QrCode({ text: URI, label: LABEL })}</div>`,
}), {});

/** The text jsQR reads from a PNG photograph, or null when it finds no code. */
function decodePng(png: Buffer): string | null {
  const { data, width, height } = PNG.sync.read(png);
  // jsqr is CommonJS whose types declare an ES default export: Node hands over module.exports, the function is its .default.
  return jsQR.default(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data ?? null;
}

describe('the markup', () => {
  const svg = /<svg[^>]*>.*?<\/svg>/s.exec(qrPage.toString())?.[0] ?? '';

  it('is one path in a labelled svg, starting after the 4-module quiet zone with the finder pattern\'s top row', () => {
    expect(svg).toMatch(/^<svg class="qr-code" viewBox="0 0 (\d+) \1" role="img" aria-label="QR code: pay 25.000000 USDC on Polygon"><path d="M4 4v1h7v-1[^"]+"><\/path><\/svg>$/);
    expect(svg.match(/<path/g)).toHaveLength(1);
  });

  it('stays small: the svg of a payment request is under 8 KB, its page under 60 KB', () => {
    expect(Buffer.byteLength(svg)).toBeLessThan(8 * 1024);
    expect(Buffer.byteLength(qrPage.toString())).toBeLessThan(60 * 1024);
  });

  it('escapes its label like any attribute value', () => {
    const out = renderPage(Layout({ title: 'x', children: QrCode({ text: 'x', label: '"><script>alert(1)</script>' }) }), {}).toString();
    expect(out).toContain('aria-label="&quot;>&lt;script>alert(1)&lt;/script>"');
  });
});

describe('in Chromium', () => {
  let browser: Browser;
  let server: ServedPages;
  beforeAll(async () => {
    const executablePath = ensureChromium();
    server = await servePages([qrPage]);
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  describe.each(['light', 'dark'] as const)('%s theme', (colorScheme) => {
    let page: Page;
    beforeAll(async () => {
      page = await browser.newPage({ viewport: { width: 360, height: 740 } });
      await page.emulateMedia({ colorScheme });
      await page.goto(server.url(0));
    });
    afterAll(() => page?.close());

    it('decodes to the payment request URI from a screenshot', async () => {
      expect(await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')).toBe(colorScheme === 'dark' ? 'rgb(20, 23, 28)' : 'rgb(255, 255, 255)');
      const qr = page.locator('svg.qr-code');
      expect(await qr.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).fill])).toEqual(['rgb(255, 255, 255)', 'rgb(0, 0, 0)']);
      expect(decodePng(await qr.screenshot())).toBe(URI);
    });

    it('is named for assistive technology, and axe finds nothing serious', async () => {
      await expect(page.getByRole('img', { name: LABEL }).count()).resolves.toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await activeParts(page)).toEqual([]);
    });
  });
});
