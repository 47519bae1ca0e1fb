import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import type { ComponentChildren } from 'preact';
import { describe, expect, it } from 'vitest';
import { Button, Form, html, HtmlPage, Layout, Money, PageCache, renderPage, sendPage, Table, Time } from '../../src/ui/index.ts';
import { BLOCKED_URL, isSafeUrl, safeUrl } from '../../src/ui/safe-url.ts';

// The renderer's rules on their own; hostile-input.test.ts checks them again in a real browser.

const page = (children: ComponentChildren, viewer = {}) => renderPage(Layout({ title: 'Test', children }), viewer).toString();

describe('escaping', () => {
  it('escapes text and attribute values and keeps the structure of the template', () => {
    const value = `<b>"'&`;
    const out = page(html`<p title=${value}>${value}</p>`);
    expect(out).toContain('<p title="&lt;b>&quot;\'&amp;">&lt;b>&quot;\'&amp;</p>');
    expect(out.startsWith('<!doctype html><html lang="en"><head>')).toBe(true);
  });

  it('renders an object that merely looks like an element as nothing', () => {
    const forged = JSON.parse('{"type":"script","props":{"children":"alert(1)"}}');
    expect(page(html`<p>${forged}</p>`)).toContain('<p></p>');
  });
});

describe('the guard', () => {
  it.each([
    ['an inline handler given as a string', () => html`<a onclick=${'alert(1)'}>x</a>`],
    ['an inline handler written in the template', () => html`<a onmouseover="alert(1)">x</a>`],
    ['a handler spread from data', () => html`<div ...${{ onfocus: 'alert(1)' }}>x</div>`],
    ['raw HTML', () => html`<div dangerouslySetInnerHTML=${{ __html: '<script>alert(1)</script>' }} />`],
    ['an inline style', () => html`<p style="color: red">x</p>`],
    ['a script', () => html`<script>alert(1)</script>`],
    ['a style element', () => html`<style>p{}</style>`],
    ['an iframe', () => html`<iframe src="/x"></iframe>`],
    ['a base element', () => html`<base href="/x" />`],
    ['a meta refresh', () => html`<meta http-equiv="refresh" content="0;url=/x" />`],
  ])('refuses %s', (_name, make) => {
    expect(make).toThrow(/not allowed/);
  });

  it('replaces unsafe URLs in every URL attribute and keeps safe ones', () => {
    const out = page(html`<div>
      <a href=${'javascript:alert(1)'}>a</a><a href=${'/dashboard?x=1&y=2'}>b</a>
      <form action=${'JAVASCRIPT:x'}><button formAction=${'data:text/html,x'}>c</button></form>
      <img src=${'vbscript:x'} alt="" /><svg><a xlinkHref=${'javascript:x'}>d</a></svg>
    </div>`, { csrfToken: 't' });
    expect(out).toContain(`<a href="${BLOCKED_URL}">a</a><a href="/dashboard?x=1&amp;y=2">b</a>`);
    expect(out).toContain(`<form action="${BLOCKED_URL}"><button formaction="${BLOCKED_URL}">c</button></form>`);
    expect(out).toContain(`<img src="${BLOCKED_URL}" alt/>`);
    expect(out).toContain(`<a xlink:href="${BLOCKED_URL}">d</a>`);
  });
});

describe('which URLs are safe', () => {
  const safe = ['/dashboard', '?q=1', '#top', 'keys/new', '//example.com/x', 'https://example.com', 'HTTP://EXAMPLE.COM', 'mailto:a@example.com', 'a/b:c', '&#106;avascript:alert(1)', '\u00a0javascript:x'];
  const unsafe = ['javascript:alert(1)', '  JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'java\nscript:x', '\u0001javascript:x', 'javascript\u0000:x', 'data:text/html,<script>', 'vbscript:x', 'file:///etc/passwd', 'blob:https://x/1'];

  it.each(safe)('%j is kept', (url) => expect(safeUrl(url)).toBe(url));
  it.each(unsafe)('%j is replaced', (url) => expect(safeUrl(url)).toBe(BLOCKED_URL));

  it('agrees with the WHATWG URL parser (what browsers run) on every case: what it keeps, a browser reads as http(s), mailto or relative', () => {
    for (const url of [...safe, ...unsafe]) {
      const protocol = new URL(url, 'https://base.invalid/').protocol;
      if (isSafeUrl(url)) expect(['https:', 'http:', 'mailto:'], url).toContain(protocol);
    }
  });
});

describe('components', () => {
  it('a Form without the session\'s CSRF token throws instead of dropping the field', () => {
    const form = Form({ action: '/dashboard/sign-out', children: Button({ children: 'Sign out' }) });
    expect(() => page(form)).toThrow(/CSRF token/);
    expect(() => page(form, { csrfToken: '' })).toThrow(/CSRF token/);
    expect(page(form, { csrfToken: 'tok' })).toContain('<form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="tok"/>');
  });

  it('a Table names itself and says when it is empty', () => {
    const out = page(Table({ label: 'Keys', columns: ['Name', 'Mode'], rows: [], empty: 'No keys yet.' }));
    expect(out).toContain('<table aria-label="Keys">');
    expect(out).toContain('<th scope="col">Name</th>');
    expect(out).toContain('<td class="empty" colspan="2">No keys yet.</td>');
  });

  it('Time shows the viewer\'s zone, the exact UTC time on hover, and UTC for a name that is not a zone', () => {
    const at = '2026-07-01T22:30:00.000Z';
    expect(page(Time({ at }), { timeZone: 'America/New_York' })).toContain(`<time datetime="${at}" title="2026-07-01 22:30:00 UTC">1 Jul 2026, 18:30 GMT-4</time>`);
    expect(page(Time({ at: new Date(at) }))).toContain('>1 Jul 2026, 22:30 UTC</time>');
    expect(page(Time({ at }), { timeZone: 'Mars/Olympus' })).toContain('>1 Jul 2026, 22:30 UTC</time>');
    expect(() => Time({ at: 'yesterday' })).toThrow(RangeError);
  });

  it('Money shows the API\'s decimal string exactly, and refuses a number', () => {
    expect(page(Money({ amount: '1000000.10', currency: 'USDC' }))).toContain('<span class="money"><data value="1000000.10">1000000.10</data> USDC</span>');
    // @ts-expect-error an amount is never a float
    expect(() => Money({ amount: 0.1, currency: 'USD' })).toThrow(TypeError);
  });

  it('renderPage renders whole documents only', () => {
    expect(() => renderPage(html`<p>x</p>`, {})).toThrow(/Layout/);
  });
});

describe('sending a page', () => {
  it('sends an HtmlPage as text/html; refuses a string or a look-alike, at compile time and at run time', async () => {
    const app = Fastify();
    app.get('/page', (_request, reply) => sendPage(reply, 201, renderPage(Layout({ title: 'Hello' }), {})));
    // @ts-expect-error a page cannot be sent from a string
    app.get('/string', (_request, reply) => sendPage(reply, 200, '<p>hi</p>'));
    // @ts-expect-error nor from an object that looks like a page (HtmlPage's text is a private field)
    app.get('/look-alike', (_request, reply) => sendPage(reply, 200, { toString: () => '<p>hi</p>' }));

    const sent = await app.inject('/page');
    expect(sent.statusCode).toBe(201);
    expect(sent.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(sent.body).toContain('<title>Hello · Payment Service</title>');
    expect((await app.inject('/string')).statusCode).toBe(500);
    expect((await app.inject('/look-alike')).statusCode).toBe(500);
    await app.close();
  });

  it('an HtmlPage is made only by renderPage', () => {
    // @ts-expect-error the constructor is private
    expect(() => new HtmlPage(Symbol('HtmlPage'), '<p>x</p>')).toThrow(TypeError);
  });
});

describe('PageCache', () => {
  let renders = 0;
  const formPage = (text: string) => () => {
    renders += 1;
    return Layout({ title: text, scripts: ['/assets/payer.0123456789abcdef.js'], children: Form({ action: '/go', label: 'Go', children: [html`<p>${text}</p>`, Button({ children: 'Go' })] }) });
  };

  it('renders a key once and fills each response\'s own nonce and form token into the kept page', () => {
    const cache = new PageCache(100_000);
    renders = 0;
    const first = cache.render('a', formPage('<Alpha>'), { nonce: 'nonceOne', csrfToken: 'token-one', timeZone: 'UTC' }).toString();
    const second = cache.render('a', formPage('<Alpha>'), { nonce: 'nonceTwo', csrfToken: 'token_two', timeZone: 'UTC' }).toString();
    expect(renders).toBe(1);
    expect(first).toBe(renderPage(formPage('<Alpha>')(), { nonce: 'nonceOne', csrfToken: 'token-one', timeZone: 'UTC' }).toString());
    expect(second).toBe(first.replaceAll('nonceOne', 'nonceTwo').replaceAll('token-one', 'token_two'));
    expect(second).toContain('nonce="nonceTwo"');
    expect(second).toContain('value="token_two"');
    expect(second).toContain('&lt;Alpha>');
  });

  it('renders anew for another key, time zone or form token presence, and forgets the least recently used page first', () => {
    const viewer = { nonce: 'n1', csrfToken: 't1', timeZone: 'UTC' };
    // Room for two pages and their keys (the markers are longer than n1 and t1), not three.
    const cache = new PageCache(2 * (renderPage(formPage('A')(), viewer).toString().length + 120));
    renders = 0;
    cache.render('a', formPage('A'), viewer);
    cache.render('b', formPage('B'), viewer);
    cache.render('b', formPage('B'), { ...viewer, timeZone: 'Europe/Berlin' }); // a third page: 'a' goes
    expect(renders).toBe(3);
    cache.render('b', formPage('B'), viewer);
    expect(renders).toBe(3);
    expect(cache.render('a', formPage('A'), viewer).toString()).toContain('<p>A</p>');
    expect(renders).toBe(4);
    expect(() => cache.render('c', formPage('C'), { nonce: 'n1', timeZone: 'UTC' })).toThrow(/CSRF token/);
  });

  it('keeps no page bigger than all it may hold, and still serves it', () => {
    const cache = new PageCache(100);
    renders = 0;
    expect(cache.render('big', formPage('Big'), { nonce: 'n1', csrfToken: 't1' }).toString()).toContain('<p>Big</p>');
    cache.render('big', formPage('Big'), { nonce: 'n1', csrfToken: 't1' });
    expect(renders).toBe(2);
  });

  it('refuses a nonce or token that is not a plain token (it would go into the page unescaped)', () => {
    const cache = new PageCache(100_000);
    expect(() => cache.render('a', formPage('A'), { nonce: '"><script>', csrfToken: 't' })).toThrow(/letters, digits/);
    expect(() => cache.render('a', formPage('A'), { nonce: 'n', csrfToken: 'a b' })).toThrow(/letters, digits/);
  });
});

it('nothing in src/ uses dangerouslySetInnerHTML (the guard, which refuses it, is the one file that names it)', () => {
  const root = path.join(import.meta.dirname, '../../src');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => /\.(ts|css)$/.test(file));
  expect(files.length).toBeGreaterThan(50);
  const naming = files.filter((file) => /dangerouslySetInnerHTML/i.test(readFileSync(path.join(root, file), 'utf8')));
  expect(naming).toEqual([path.join('ui', 'guard.ts')]);
});
