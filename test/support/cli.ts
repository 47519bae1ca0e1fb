import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestApp } from './harness.ts';
import { TEST_SECRETS } from './harness.ts';

const run = promisify(execFile);

/**
 * Runs the operator CLI as a separate process on the test app's database, with the app's
 * encryption key and `env` on top (undefined removes a variable). DATA_DIR should be a
 * temporary folder: the CLI keeps what it generates there.
 */
export async function runCli(t: TestApp, args: string[], env: Record<string, string | undefined>) {
  const merged: Record<string, string | undefined> = {
    // Vite puts BASE_URL=/ in the test process's environment; an operator's shell has none.
    ...process.env, BASE_URL: undefined, SMTP_URL: undefined, LOG_LEVEL: 'silent', DATABASE_URL: t.config.databaseUrl,
    SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), ...env,
  };
  const childEnv = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
  try {
    const { stdout, stderr } = await run(process.execPath, ['src/cli.ts', ...args], { env: childEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
