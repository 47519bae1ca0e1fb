import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingSlug, markdownOutline } from '../../src/ui/markdown.ts';

// Every link of the repository's Markdown (README.md, docs/, the folders' own READMEs) to a file
// of the repository resolves, and a link to a heading (`file.md#heading`, `#heading`) finds it.
// Links and headings are read from the same syntax tree the served pages are made from
// (`markdownOutline`: inline links, images, reference definitions and references, titles and
// code spans as Markdown has them), and anchors are GitHub's. Links to other sites are not
// followed (the machine has no network); they are only required to be https.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', '.git', '.data', 'dist', 'test']);

function markdownFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (SKIP.has(name) || name.startsWith('.data')) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const outlines = new Map<string, ReturnType<typeof markdownOutline>>();
const outline = (file: string) => {
  if (!outlines.has(file)) outlines.set(file, markdownOutline(readFileSync(file, 'utf8')));
  return outlines.get(file)!;
};

const files = markdownFiles(ROOT);

describe('links of the Markdown files', () => {
  it('finds the files to check, and makes anchors as GitHub does', () => {
    expect(files.map((file) => relative(ROOT, file))).toEqual(expect.arrayContaining(['README.md', 'docs/accept-payments.md', 'docs/reference/errors.md']));
    // Anchors GitHub gives these headings (punctuation dropped, spaces as hyphens, case folded).
    expect(headingSlug('Typed client (client/: @payment-service/client)')).toBe('typed-client-client-payment-serviceclient');
    expect(headingSlug('Payer pages (spec 2.1 url and tracking_url, 2.2 url, 4.2)')).toBe('payer-pages-spec-21-url-and-tracking_url-22-url-42');
    expect([...markdownOutline('# A\n\n## A\n\n## `code`: B\n').anchors]).toEqual(['a', 'a-1', 'code-b']);
    // github-slugger's cases: marks and letters of every script kept, other numbers, symbols and
    // separators but the space dropped, underscores and hyphens kept, nothing trimmed.
    const cases: Array<[string, string]> = [
      ['हिन्दी', 'हिन्दी'], ['Cafe\u0301 crème', 'cafe\u0301-crème'], ['a\u00a0b', 'ab'], ['x² and ½', 'x-and-'], ['🎉 Party', '-party'],
      ['snake_case  two', 'snake_case--two'], ['-Lead and trail-', '-lead-and-trail-'], ['Ünïcödé', 'ünïcödé'], ['C++ & C#', 'c--c'],
    ];
    for (const [heading, slug] of cases) expect(headingSlug(heading), heading).toBe(slug);
    // A footnote's anchor never meets a heading's.
    expect([...markdownOutline('# Fn 1\n\nA[^1].\n\n[^1]: Note.\n').anchors]).toEqual(['fn-1', 'fn:1']);
  });

  it('reads every kind of link: inline with a title, reference-style, images, and none inside code', () => {
    const { links } = markdownOutline('[a](x.md "t") ![b](y.png)\n\n[c][ref] `[d](no.md)`\n\n```\n[e](no.md)\n```\n\n[ref]: z.md#h\n');
    expect(links.map((link) => link.url)).toEqual(['x.md', 'y.png', 'z.md#h']);
  });

  for (const file of files) {
    it(`${relative(ROOT, file)}: every link resolves`, () => {
      const broken: string[] = [];
      for (const { url } of outline(file).links) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
          if (!/^(https|mailto):/i.test(url)) broken.push(`${url} (not https)`);
          continue;
        }
        const [path, anchor] = url.split('#') as [string, string | undefined];
        const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(destination)) {
          broken.push(`${url} (no such file)`);
          continue;
        }
        if (anchor !== undefined && destination.endsWith('.md') && !outline(destination).anchors.has(decodeURIComponent(anchor))) {
          broken.push(`${url} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
