import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { contrastRatio } from '../../src/resources/brand/color.ts';
import { appWithChromium, ownerSignedIn } from '../support/browser-app.ts';
import { FIXTURE_BRAND_COLOR, FIXTURE_LOGO, FIXTURE_LOGO_SHA256, makePng } from '../support/brand-fixture.ts';
import { Browser } from '../support/browser.ts';
import { csrfOf, dashboardMerchant } from '../support/dashboard.ts';

// Issue 23's brand: an owner uploads a logo and sets a colour on the Settings page in Chromium;
// the business's payer pages show the logo (served from our origin, as the type its bytes are,
// with nothing able to run) and draw the pay button in the colour. What is not an image, too
// large, or too light for white text is refused in words and nothing is stored.

const app = appWithChromium();
const settingsOf = (id: string) => `/dashboard/businesses/${id}/test/settings`;

async function upload(page: Page, id: string, name: string, mimeType: string, buffer: Buffer): Promise<void> {
  await page.goto(`${app.t.url}${settingsOf(id)}`);
  await page.getByLabel('Logo', { exact: true }).or(page.getByLabel('A new logo')).setInputFiles({ name, mimeType, buffer });
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await page.waitForLoadState();
}

const storedLogo = (id: string) => app.t.db.selectFrom('business_logos').select(['sha256', 'content_type', 'width', 'height', 'byte_size']).where('business_id', '=', id).executeTakeFirst();

async function paymentLinkPage(key: string): Promise<string> {
  const link = await app.t.request('POST', '/v1/payment_links', { key, body: { amount: '12.00', currency: 'USD', description: 'House blend' } });
  expect(link.status).toBe(201);
  return link.body.url as string;
}

describe('brand', () => {
  it('refuses what is not a small enough image in words, storing nothing; then takes a PNG and shows it on the payer page, served safely', async () => {
    const { page, id, key } = await ownerSignedIn(app, 'Kestrel Coffee Roasters');
    const refusals: Array<[string, string, Buffer, string]> = [
      ['logo.svg', 'image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'must be a PNG, JPEG, WebP or GIF image'],
      ['notes.png', 'image/png', Buffer.from('Just some text, renamed to look like an image.\n'), 'must be a PNG, JPEG, WebP or GIF image'],
      ['noise.png', 'image/png', makePng(400, 400, () => [...randomBytes(3), 255] as [number, number, number, number]), 'larger than 256 KB'],
      ['photo.jpg', 'image/jpeg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), randomBytes(3 * 1024 * 1024)]), 'larger than 256 KB'],
      ['wide.png', 'image/png', makePng(3000, 4, () => [0, 0, 0, 255]), 'it can be at most 2048×2048'],
      ['cut.png', 'image/png', FIXTURE_LOGO.subarray(0, 20), 'cannot be read'],
    ];
    for (const [name, type, bytes, message] of refusals) {
      await upload(page, id, name, type, bytes);
      expect(await page.locator('#field-logo-error').textContent(), name).toContain(message);
      expect(await page.locator('#field-logo').getAttribute('aria-invalid'), name).toBe('true');
      expect(await storedLogo(id), name).toBeUndefined();
    }

    await upload(page, id, 'logo.png', 'application/octet-stream', FIXTURE_LOGO);
    expect(await page.getByText('Saved.').isVisible()).toBe(true);
    expect(await storedLogo(id)).toEqual({ sha256: FIXTURE_LOGO_SHA256, content_type: 'image/png', width: 160, height: 48, byte_size: FIXTURE_LOGO.length });
    const preview = page.locator('.logo-preview img');
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(160);
    // The account's activity names the change.
    expect(await page.getByRole('table', { name: 'Activity' }).textContent()).toContain('Logo uploaded');

    const payer = await app.browser.newPage();
    const requested: string[] = [];
    payer.on('request', (request) => requested.push(request.url()));
    await payer.goto(await paymentLinkPage(key));
    const logo = payer.locator('.business-mark img');
    expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(160);
    expect(await logo.getAttribute('alt')).toBe('');
    expect(requested.every((url) => url.startsWith(app.t.url))).toBe(true);
    const src = (await logo.getAttribute('src'))!;
    expect(src).toBe(`/assets/logos/${id}/${FIXTURE_LOGO_SHA256.slice(0, 16)}`);
    await payer.close();

    const served = await fetch(`${app.t.url}${src}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await served.arrayBuffer()).equals(FIXTURE_LOGO)).toBe(true);

    // Another business's address, an unknown hash, a malformed one: not found.
    const other = await app.t.business({ name: 'Other shop' });
    for (const path of [`/assets/logos/${other.id}/${FIXTURE_LOGO_SHA256.slice(0, 16)}`, `/assets/logos/${id}/0000000000000000`, `/assets/logos/${id}/${FIXTURE_LOGO_SHA256}`,
      `/assets/logos/bad%00id/${FIXTURE_LOGO_SHA256.slice(0, 16)}`, `/assets/brand/${id}.css`, `/assets/brand/${id}.0000000000000000.css`, '/assets/brand/..%2F..%2Fetc.css']) {
      const missing = await fetch(`${app.t.url}${path}`);
      expect(missing.status, path).toBe(404);
      expect(missing.headers.get('cache-control'), path).toBe('no-store');
    }

    // A new logo is a new address; the old one is gone.
    const second = makePng(32, 32, () => [0x12, 0x34, 0x56, 255]);
    await upload(page, id, 'square.png', 'image/png', second);
    expect((await storedLogo(id))?.width).toBe(32);
    expect((await fetch(`${app.t.url}${src}`)).status).toBe(404);

    // Removed: the payer page shows the name alone.
    await page.getByRole('button', { name: 'Remove logo' }).click();
    await page.waitForLoadState();
    expect(await storedLogo(id)).toBeUndefined();
    expect(await page.getByRole('table', { name: 'Activity' }).textContent()).toContain('Logo removed');
    const after = await app.browser.newPage();
    await after.goto(await paymentLinkPage(key));
    expect(await after.locator('.business-mark img').count()).toBe(0);
    await after.close();
    await page.close();
  }, 90_000); // twelve uploads through a real browser: 11 s alone, over 30 s beside the suite's other files

  it('refuses a colour too light for white text, keeping what was typed; a dark one colours the payer page\'s pay button', async () => {
    const { page, id, key } = await ownerSignedIn(app, 'Harbour Tea');
    const saveColor = async (typed: string) => {
      await page.goto(`${app.t.url}${settingsOf(id)}`);
      await page.getByLabel('or type it (#rrggbb)').fill(typed);
      await page.getByRole('button', { name: 'Save colour' }).click();
      await page.waitForLoadState();
    };
    await saveColor('#FFD23F');
    expect(await page.locator('#field-brand_color-error').textContent()).toContain('too light');
    expect(await page.locator('#field-brand_color-error').textContent()).toContain('4.5:1');
    expect(await page.getByLabel('or type it (#rrggbb)').inputValue()).toBe('#FFD23F');
    await saveColor('navy');
    expect(await page.locator('#field-brand_color-error').textContent()).toContain('#rrggbb');
    expect((await app.t.db.selectFrom('businesses').select('brand_color').where('id', '=', id).executeTakeFirstOrThrow()).brand_color).toBeNull();

    expect(contrastRatio(FIXTURE_BRAND_COLOR, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    await saveColor(FIXTURE_BRAND_COLOR.toUpperCase());
    expect(await page.getByText('Saved.').isVisible()).toBe(true);
    expect((await app.t.db.selectFrom('businesses').select('brand_color').where('id', '=', id).executeTakeFirstOrThrow()).brand_color).toBe(FIXTURE_BRAND_COLOR);
    expect(await page.getByRole('table', { name: 'Activity' }).textContent()).toContain(`Brand colour set to ${FIXTURE_BRAND_COLOR}`);

    const payer = await app.browser.newPage();
    await payer.goto(await paymentLinkPage(key));
    const sheet = (await payer.locator('link[rel="stylesheet"][href^="/assets/brand/"]').getAttribute('href'))!;
    expect(sheet).toMatch(new RegExp(`^/assets/brand/${id}\\.[0-9a-f]{16}\\.css$`));
    const button = payer.locator('main button.primary').first();
    expect(await button.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(122, 62, 18)');
    expect(await button.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(255, 255, 255)');
    await payer.close();
    const css = await fetch(`${app.t.url}${sheet}`);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await css.text()).toContain(`--brand: ${FIXTURE_BRAND_COLOR}`);

    // The picker alone, moved without touching the text, sets the colour; emptying the text removes it.
    await page.goto(`${app.t.url}${settingsOf(id)}`);
    await page.getByLabel('Pick a colour').fill('#1d4d2b');
    await page.getByRole('button', { name: 'Save colour' }).click();
    await page.waitForLoadState();
    expect((await app.t.db.selectFrom('businesses').select('brand_color').where('id', '=', id).executeTakeFirstOrThrow()).brand_color).toBe('#1d4d2b');
    expect((await fetch(`${app.t.url}${sheet}`)).status).toBe(404);
    await saveColor('');
    expect((await app.t.db.selectFrom('businesses').select('brand_color').where('id', '=', id).executeTakeFirstOrThrow()).brand_color).toBeNull();
    await page.close();
  });

  it('lets only owners change the brand, and checks a multipart form\'s CSRF token in its address before reading it, and in its body', async () => {
    const m = await dashboardMerchant(app.t);
    const logoPath = `${m.area('settings')}/logo`;
    const multipart = async (who: Browser, token: { address?: string; body?: string }) => {
      const form = new FormData();
      if (token.body !== undefined) form.append('csrf', token.body);
      // Text only (this client sends text): an upload that is no image, refused after the role and CSRF checks.
      form.append('logo', new Blob(['not an image'], { type: 'image/png' }), 'logo.png');
      const request = new Request('http://local/', { method: 'POST', body: form });
      const body = await request.text();
      const address = token.address === undefined ? logoPath : `${logoPath}?csrf=${encodeURIComponent(token.address)}`;
      return who.request('POST', address, undefined, { 'content-type': request.headers.get('content-type')! }, body);
    };
    for (const who of [m.developer, m.viewer]) {
      const page = await who.request('GET', m.area('settings'));
      expect(page.html).not.toContain('Upload logo');
      const token = csrfOf(page.html);
      const refused = await multipart(who, { address: token, body: token });
      expect(refused.status).toBe(403);
      expect(refused.html).toContain('This needs the owner role');
      const color = await who.request('POST', m.area('settings'), { csrf: token, brand_color: '#123456', brand_color_was: '' });
      expect(color.status).toBe(403);
    }
    const owner = await m.owner.request('GET', m.area('settings'));
    const token = csrfOf(owner.html);
    // The page's upload form carries the token in its address as well as in its body.
    expect(owner.html).toContain(`action="${logoPath}?csrf=${encodeURIComponent(token)}"`);
    expect((await multipart(m.owner, {})).status).toBe(403);
    expect((await multipart(m.owner, { body: token })).status).toBe(403);
    expect((await multipart(m.owner, { address: 'not-the-token', body: token })).status).toBe(403);
    expect((await multipart(m.owner, { address: token, body: 'not-the-token' })).status).toBe(403);
    expect(await storedLogo(m.biz.id)).toBeUndefined();
    const checked = await multipart(m.owner, { address: token, body: token });
    expect(checked.status).toBe(400);
    expect(checked.html).toContain('must be a PNG, JPEG, WebP or GIF image');
    expect(await storedLogo(m.biz.id)).toBeUndefined();
    const withToken = `${logoPath}?csrf=${encodeURIComponent(token)}`;
    // A body past 16 MiB is not read at all.
    const huge = await m.owner.request('POST', withToken, undefined, { 'content-type': 'multipart/form-data; boundary=x' }, 'a'.repeat(17 * 1024 * 1024));
    expect(huge.status).toBe(413);
    expect(huge.html).toContain('far larger than 256 KB');
    // A body the parser cannot read is the sender's fault, in words: no boundary, or cut short.
    for (const [contentType, body] of [['multipart/form-data', '--x\r\n'], ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${token}\r\n--x\r\nContent-Disposition: form-data; name="logo"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc`]] as const) {
      const broken = await m.owner.request('POST', withToken, undefined, { 'content-type': contentType }, body);
      expect(broken.status, contentType).toBe(400);
      expect(broken.html).toContain('could not be read');
    }
    // Any other route of the dashboard still refuses multipart.
    const elsewhere = await m.owner.request('POST', m.area('settings'), undefined, { 'content-type': 'multipart/form-data; boundary=x' }, '--x--');
    expect(elsewhere.status).toBe(415);
  });

  it('reads none of a stranger\'s upload: 512 MiB sent in chunks without a cookie is answered before 1 MiB of it is read', async () => {
    const m = await dashboardMerchant(app.t);
    const read: Socket[] = [];
    const listen = (socket: Socket) => read.push(socket);
    app.t.server.on('connection', listen);
    try {
      const { status, sent } = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
        const request = httpRequest(`${app.t.url}${m.area('settings')}/logo`, {
          method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' },
        });
        const chunk = Buffer.alloc(64 * 1024, 97);
        let sent = 0;
        let answered = false;
        request.on('response', (response) => {
          answered = true;
          response.resume();
          resolve({ status: response.statusCode ?? 0, sent });
        });
        request.on('error', (error) => (answered ? undefined : reject(error)));
        const pump = () => {
          while (!answered && sent < 512 * 1024 * 1024) {
            sent += chunk.length;
            if (!request.write(chunk)) return void request.once('drain', pump);
          }
          if (!answered) request.end();
        };
        pump();
      });
      expect(status).toBe(303); // to sign in
      expect(sent).toBeLessThan(512 * 1024 * 1024);
      // What the service read of that connection: the headers and at most what arrived with them.
      expect(read.length).toBeGreaterThan(0);
      expect(Math.max(...read.map((socket) => socket.bytesRead))).toBeLessThan(1024 * 1024);
    } finally {
      app.t.server.off('connection', listen);
    }
  });
});
