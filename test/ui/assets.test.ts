import { afterAll, beforeAll, expect, it } from 'vitest';
import { STYLESHEET_PATH } from '../../src/ui/assets.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The stylesheet as the app serves it: under its content hash, cached for a year (the app's
// no-store applies to everything else), and only under the current hash.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('serves the stylesheet under its content hash with a long cache', async () => {
  expect(STYLESHEET_PATH).toMatch(/^\/assets\/ui\.[0-9a-f]{16}\.css$/);
  const response = await fetch(`${t.url}${STYLESHEET_PATH}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  const css = await response.text();
  expect(css).toContain('color-scheme: light dark');
  expect(css).toContain(':focus-visible');
});

it('answers an old hash with 404, not cached', async () => {
  const response = await fetch(`${t.url}/assets/ui.0000000000000000.css`);
  expect(response.status).toBe(404);
  expect(response.headers.get('cache-control')).toBe('no-store');
});
