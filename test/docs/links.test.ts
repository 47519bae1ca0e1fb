import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every link of the repository's Markdown (README.md, docs/, the folders' own READMEs) to a file
// of the repository resolves, and a link to a heading (`file.md#heading`, `#heading`) finds it,
// as GitHub makes heading anchors. Links to other sites are not followed (the machine has no
// network); they are only required to be https.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', '.git', '.data', 'dist', 'test']);

function markdownFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (SKIP.has(name)) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks and inline code: links in code are examples, not links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors of a file's headings: lowercased, punctuation dropped, spaces as hyphens, repeats numbered; and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = match[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

const files = markdownFiles(ROOT);

describe('links of the Markdown files', () => {
  it('finds the files to check', () => {
    expect(files.map((file) => relative(ROOT, file))).toContain('README.md');
  });

  for (const file of files) {
    it(`${relative(ROOT, file)}: every link resolves`, () => {
      const text = readFileSync(file, 'utf8');
      const broken: string[] = [];
      for (const match of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
          if (!/^(https|mailto):/i.test(target)) broken.push(`${target} (not https)`);
          continue;
        }
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(destination)) {
          broken.push(`${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && destination.endsWith('.md') && !anchorsOf(readFileSync(destination, 'utf8')).has(anchor)) {
          broken.push(`${target} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
