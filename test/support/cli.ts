import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runCommandLine } from '../../src/command-line.ts';
import type { TestApp } from './harness.ts';
import { TEST_SECRETS } from './harness.ts';

const run = promisify(execFile);

/** The CLI's environment in a test: the test app's database, encryption key and deposit wallet, `env` on top (undefined removes a variable). */
function cliEnv(t: TestApp, env: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
    // Vite puts BASE_URL=/ in the test process's environment; an operator's shell has none.
    ...process.env, BASE_URL: undefined, SMTP_URL: undefined, LOG_LEVEL: 'silent', DATABASE_URL: t.config.databaseUrl,
    SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64'), DEPOSIT_XPUB: TEST_SECRETS.depositXpub, ...env,
  };
}

/**
 * Runs an operator command on the test app's database as the CLI runs it (runCommandLineHere).
 * DATA_DIR should be a temporary folder: the CLI keeps what it generates there.
 */
export function runCli(t: TestApp, args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return runCommandLineHere(args, cliEnv(t, env));
}

/** The same as a separate process, `node src/cli.ts`, as an operator's shell runs it. */
export async function runCliProcess(t: TestApp, args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const childEnv = Object.fromEntries(Object.entries(cliEnv(t, env)).filter((entry): entry is [string, string] => entry[1] !== undefined));
  try {
    const { stdout, stderr } = await run(process.execPath, ['src/cli.ts', ...args], { env: childEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command line in this process (src/command-line.ts, what the CLI process runs) with
 * `env` as its whole environment, its output captured as the process's would be: a line per
 * write. A test of many commands runs them here (a CLI process costs about a second of start-up);
 * what only a real process shows (its exit, its data folder, an embedded database of its own) is
 * tested by running one.
 */
export async function runCommandLineHere(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const whole = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  try {
    const code = await runCommandLine(args, { env: whole, out: (line) => out.push(`${line}\n`), err: (line) => err.push(`${line}\n`) });
    return { code, stdout: out.join(''), stderr: err.join('') };
  } catch (error) {
    // What would crash the process: exit 1 with its stack on stderr.
    return { code: 1, stdout: out.join(''), stderr: `${err.join('')}${error instanceof Error ? error.stack : String(error)}\n` };
  }
}
