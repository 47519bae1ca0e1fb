import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { afterAll, expect, it } from 'vitest';
import { embeddedDepositXpub } from '../../src/core/deposit-wallet.ts';
import { StartupError } from '../../src/core/errors.ts';

// Issue 31, must have 6: the embedded default's deposit wallet in DATA_DIR. The first start writes
// the seed and its account xpub beside it; the service's roles read the xpub alone. A data folder
// from before the xpub file (a seed, no xpub) is completed by the all-in-one or the processor,
// which may read the seed; the API, worker and CLI refuse in one sentence instead.

const made: string[] = [];
afterAll(async () => { for (const dir of made) await rm(dir, { recursive: true, force: true }); });

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'deposit-wallet-'));
  made.push(dir);
  return path.join(dir, '.data');
}

const SEED = Buffer.alloc(32, 7);
const XPUB = HDKey.fromMasterSeed(SEED).derive("m/44'/60'/0'/0").publicExtendedKey;
const files = (dir: string) => ({ seed: path.join(dir, 'deposit-wallet.seed'), xpub: path.join(dir, 'deposit-wallet.xpub') });

it('the first start makes the seed and writes its xpub beside it, both 0600', async () => {
  const dir = await dataDir();
  const xpub = await embeddedDepositXpub(dir, { readsSeed: false });
  const seed = Buffer.from((await readFile(files(dir).seed, 'utf8')).trim(), 'hex');
  expect(seed).toHaveLength(32);
  expect(xpub).toBe(HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0").publicExtendedKey);
  expect((await readFile(files(dir).xpub, 'utf8')).trim()).toBe(xpub);
  for (const file of Object.values(files(dir))) expect((await stat(file)).mode & 0o777).toBe(0o600);
  // No draft left behind.
  expect((await readdir(dir)).sort()).toEqual(['.gitignore', 'deposit-wallet.seed', 'deposit-wallet.xpub']);
});

it('later starts read the xpub alone: without the seed there, none is made', async () => {
  const dir = await dataDir();
  const xpub = await embeddedDepositXpub(dir, { readsSeed: false });
  await unlink(files(dir).seed);
  for (const readsSeed of [false, true]) expect(await embeddedDepositXpub(dir, { readsSeed })).toBe(xpub);
  expect(existsSync(files(dir).seed)).toBe(false);
});

it('processes starting at once on an empty folder agree on one wallet', async () => {
  const dir = await dataDir();
  const xpubs = await Promise.all(Array.from({ length: 6 }, (_, i) => embeddedDepositXpub(dir, { readsSeed: i % 2 === 0 })));
  expect(new Set(xpubs).size).toBe(1);
  const seed = Buffer.from((await readFile(files(dir).seed, 'utf8')).trim(), 'hex');
  expect(xpubs[0]).toBe(HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0").publicExtendedKey);
});

it('a seed without its xpub (a folder from before): the API, worker and CLI refuse in one sentence; the all-in-one writes it', async () => {
  const dir = await dataDir();
  await embeddedDepositXpub(dir, { readsSeed: false });
  await writeFile(files(dir).seed, `${SEED.toString('hex')}\n`, { mode: 0o600 });
  await unlink(files(dir).xpub);

  const refused = embeddedDepositXpub(dir, { readsSeed: false });
  await expect(refused).rejects.toBeInstanceOf(StartupError);
  await expect(refused).rejects.toThrow(`${files(dir).xpub} is missing beside the deposit seed, and this role never reads the seed: start the all-in-one (npm start) once to write it, or set DEPOSIT_XPUB.`);
  expect(existsSync(files(dir).xpub)).toBe(false);

  expect(await embeddedDepositXpub(dir, { readsSeed: true })).toBe(XPUB);
  expect((await readFile(files(dir).xpub, 'utf8')).trim()).toBe(XPUB);
  expect(await embeddedDepositXpub(dir, { readsSeed: false })).toBe(XPUB);
});

it('refuses an xpub file that is not an extended public key, in one sentence', async () => {
  const dir = await dataDir();
  await embeddedDepositXpub(dir, { readsSeed: false });
  await writeFile(files(dir).xpub, `${HDKey.fromMasterSeed(SEED).derive("m/44'/60'/0'/0").privateExtendedKey}\n`);
  await expect(embeddedDepositXpub(dir, { readsSeed: true })).rejects.toThrow(`${files(dir).xpub} is not an extended public key (xpub…)`);
});
