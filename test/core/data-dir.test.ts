import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ensureDataDir } from '../../src/core/data-dir.ts';

// Issue 14, finding 6: a data folder not named .data (DATA_DIR=.data-x) was not ignored by git,
// and it holds the deposit wallet's key and the encryption key. Any data folder now ignores itself.

const made: string[] = [];
afterAll(async () => { for (const dir of made) await rm(dir, { recursive: true, force: true }); });

it('a data folder of any name, inside a repository, is ignored by git with everything in it', async () => {
  const repo = await mkdtemp(path.join(tmpdir(), 'repo-'));
  made.push(repo);
  execFileSync('git', ['init', '-q', repo]);
  const dataDir = path.join(repo, '.data-x');
  await ensureDataDir(dataDir);
  await writeFile(path.join(dataDir, 'encryption.key'), 'secret\n', { mode: 0o600 });
  await writeFile(path.join(repo, 'app.ts'), 'export {};\n');
  const status = execFileSync('git', ['-C', repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
  expect(status.trim().split('\n')).toEqual(['?? app.ts']);
  expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  // A second start leaves the file (and anything the operator wrote in it) as it is.
  await writeFile(path.join(dataDir, '.gitignore'), '*\n# kept\n');
  await ensureDataDir(dataDir);
  expect(await readFile(path.join(dataDir, '.gitignore'), 'utf8')).toBe('*\n# kept\n');
});
