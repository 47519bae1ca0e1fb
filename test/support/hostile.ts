import type { Browser, Page } from 'playwright-core';

// The attacks a merchant, buyer or agent client can type into any field we show, and the check
// that a page loaded in Chromium stayed inert: used by the components' test (test/ui) and the
// every-page test (test/pages).

const LONG = `${'x'.repeat(3000)}<script>alert(1)</script>${'ø'.repeat(3000)}`;

export const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  'javascript:alert(1)',
  '  JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '&#106;avascript:alert(1)',
  '</title><script>alert(1)</script>',
  '</style><script>alert(1)</script>',
  LONG,
  '👩🏽‍💻 Zahlung 💸 ✓',
  'دفع \u202eالمتجر\u202c עברית',
];

/** HOSTILE's markup attacks (a tag, a closed attribute, a closed title or style): each one a text or attribute context must escape. */
const MARKUP = HOSTILE.filter((value) => /^(<|"|')/.test(value));

/**
 * What the every-page test fills every field with: the markup attacks in one value (a field that
 * let any of them through would let this through), then each other attack on its own (a URL's
 * scheme counts only at its start; the long, emoji and bidirectional values are about layout).
 */
export const PAGE_ATTACKS = [MARKUP.join(''), ...HOSTILE.filter((value) => !MARKUP.includes(value))];

/** The values a browser would follow as script or data: each must have been replaced. */
export const UNSAFE_URLS = new Set(['javascript:alert(1)', '  JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>alert(1)</script>']);

/** A value as a test's name: quoted, and the long one shortened. */
export function hostileName(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 20)}… (${value.length} characters)` : value);
}

/** A page that records the dialogs (alert, confirm, prompt) anything in it opens. */
export async function watchedPage(browser: Browser, viewport = { width: 360, height: 740 }): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser.newPage({ viewport });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { page, dialogs };
}

/**
 * What in the loaded document could run or load something the data put there: script, embedding
 * or styling elements, inline handlers, and links, forms or sources whose URL is javascript: or
 * data:. Empty when the page is inert. (No page of ours has an image, its only svg is a QrCode:
 * an svg.qr-code holding one path with only its d, and its only script is the payer pages' or the dashboard's own,
 * empty, in the head, by its hashed address; so any other is the data's.)
 */
export function activeParts(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const found = [];
    const qrCode = (el) => el.matches('svg.qr-code') && el.children.length === 1 && el.firstElementChild.matches('path')
      && el.firstElementChild.attributes.length === 1 && el.firstElementChild.hasAttribute('d');
    const ownScript = (el) => el.matches('head > script[src][nonce][defer]') && el.attributes.length === 3 && el.textContent === ''
      && /^\\/assets\\/(payer|dashboard)\\.[0-9a-f]{16}\\.js$/.test(el.getAttribute('src'));
    // A business's logo, from our own origin at its hashed address (pages/brand-assets.ts).
    const ownLogo = (el) => el.matches('img[src]') && /^\\/assets\\/logos\\/\\w+\\/[0-9a-f]{16}$/.test(el.getAttribute('src'))
      && [...el.attributes].every((a) => ['src', 'alt', 'class', 'width', 'height'].includes(a.name));
    for (const el of document.querySelectorAll('script, img, svg, iframe, frame, object, embed, style, base, meta[http-equiv]')) {
      if (!qrCode(el) && !ownScript(el) && !ownLogo(el)) found.push('<' + el.tagName.toLowerCase() + '>');
    }
    for (const el of document.querySelectorAll('*')) {
      for (const attribute of el.attributes) if (/^on/i.test(attribute.name)) found.push(el.tagName.toLowerCase() + ' ' + attribute.name);
    }
    const urls = [
      ...[...document.querySelectorAll('a[href], area[href], link[href]')].map((el) => ['href', el.href]),
      ...[...document.querySelectorAll('form')].map((el) => ['action', el.action]),
      ...[...document.querySelectorAll('[src], [formaction]')].map((el) => [el.hasAttribute('src') ? 'src' : 'formaction', el.src || el.formAction]),
    ];
    for (const [name, url] of urls) {
      const protocol = new URL(url).protocol;
      if (protocol === 'javascript:' || protocol === 'data:') found.push(name + '=' + url);
    }
    return found;
  })()`);
}
