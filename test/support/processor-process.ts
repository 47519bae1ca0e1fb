import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Address } from 'viem';
import type { TestTokens } from './chain-tokens.ts';
import { TEST_DEPOSIT_WALLET, TEST_PROCESSOR_SECRET, type TestApp } from './harness.ts';

// The processor as a real process (`node src/main.ts --role processor`) for the tests that kill it
// with SIGKILL: started against a test app's database and a local chain posing as Polygon, its
// output kept for the failure message, killed and waited for.

export interface ProcessorProcessSetup {
  t: TestApp;
  /** Holds `seed.hex`, the processor's deposit seed (mode 0600). */
  dataDir: string;
  chainUrl: string;
  tokens: TestTokens;
  multicall: Address;
  depth: number;
  /** Every line the processes print, in order. */
  output: string[];
}

/** Starts the processor with `env` added (PROCESSOR_FEE_WALLET, or what a test refuses). */
export function startProcessorProcess(setup: ProcessorProcessSetup, env: Record<string, string>): ChildProcess {
  const { t, dataDir, chainUrl, tokens, multicall, depth, output } = setup;
  const started = spawn(process.execPath, ['src/main.ts', '--role', 'processor'], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: t.config.databaseUrl ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent',
      // No SECRET_ENCRYPTION_KEY: the processor opens nothing sealed, and its host need not hold the key.
      DEPOSIT_XPUB: TEST_DEPOSIT_WALLET.publicExtendedKey,
      PROCESSOR_SECRET: TEST_PROCESSOR_SECRET, PROCESSOR_SEED_FILE: path.join(dataDir, 'seed.hex'), PROCESSOR_POLL_MS: '200',
      PROCESSOR_NOTICES_URL: `${t.url}/processor/notices`,
      POLYGON_RPC_URL: chainUrl, POLYGON_CHAIN_ID: '137', POLYGON_CONFIRMATIONS: String(depth),
      POLYGON_USDC: tokens.address.usdc.toLowerCase(), POLYGON_USDT: tokens.address.usdt.toLowerCase(), POLYGON_MULTICALL: multicall.toLowerCase(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  started.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return started;
}

/** SIGKILL, and the exit waited for. */
export async function killed(process: ChildProcess): Promise<void> {
  if (process.exitCode !== null) return;
  const exited = new Promise((resolve) => process.once('exit', resolve));
  process.kill('SIGKILL');
  await exited;
}

/** Reads until `done` holds; after `timeoutMs`, fails with what it read and the processes' output. */
export async function until<T>(output: readonly string[], what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited for ${what}: ${JSON.stringify(value)}\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
