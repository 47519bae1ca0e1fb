import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HDKey } from '@scure/bip32';
import { ensureDataDir } from './data-dir.ts';
import { StartupError } from './errors.ts';

// The embedded default's deposit wallet, in DATA_DIR when DEPOSIT_XPUB is unset: the seed, which
// only the processor needs, and beside it the account xpub, all the service needs. The first
// start writes both, so the API, worker and CLI roles read the xpub and never the seed.

export const SEED_FILE = 'deposit-wallet.seed';
export const XPUB_FILE = 'deposit-wallet.xpub';
/** The account whose non-hardened child i is deposit address i (processor/chain/keys.ts signs for it). */
export const ACCOUNT_PATH = "m/44'/60'/0'/0";

// How long a role that finds the seed without its xpub waits for a process writing both at once.
const XPUB_WAIT_MS = 2_000;
const XPUB = /^[xt]pub[1-9A-HJ-NP-Za-km-z]{100,}$/;

/** A seed written in hex (0x allowed), or undefined: BIP-32 seeds are 16 to 64 bytes. */
export function seedFromHex(text: string): Buffer | undefined {
  const hex = text.trim().replace(/^0x/i, '');
  return /^([0-9a-fA-F]{2}){16,64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/** The extended public key of a seed's account: what the service derives deposit addresses from. */
export function accountXpubOf(seed: Uint8Array): string {
  return HDKey.fromMasterSeed(seed).derive(ACCOUNT_PATH).publicExtendedKey;
}

/** Writes `text` to `file` whole or not at all, mode 0600: false when the file exists already. */
async function writeOnce(file: string, text: string): Promise<boolean> {
  const draft = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(draft, `${text}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft);
  }
}

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The seed (written first: it holds the money), then its xpub; undefined when another process made the seed first. */
async function makeWallet(seedFile: string, xpubFile: string): Promise<string | undefined> {
  const seed = randomBytes(32);
  if (!(await writeOnce(seedFile, seed.toString('hex')))) return undefined;
  const xpub = accountXpubOf(seed);
  await writeOnce(xpubFile, xpub);
  return xpub;
}

/**
 * The deposit xpub without DEPOSIT_XPUB: DATA_DIR/deposit-wallet.xpub, the wallet made first when
 * there is none. A seed without its xpub (a data folder from before the xpub file) is derived from
 * only by a role that `readsSeed` (the all-in-one, the processor); any other refuses to start.
 */
export async function embeddedDepositXpub(dataDir: string, options: { readsSeed: boolean }): Promise<string> {
  const [seedFile, xpubFile] = [path.join(dataDir, SEED_FILE), path.join(dataDir, XPUB_FILE)];
  await ensureDataDir(dataDir);
  const deadline = Date.now() + XPUB_WAIT_MS;
  for (;;) {
    const xpub = await readIfThere(xpubFile);
    if (xpub !== undefined) {
      if (!XPUB.test(xpub)) throw new StartupError(`${xpubFile} is not an extended public key (xpub…): set DEPOSIT_XPUB, or remove the file for the all-in-one (npm start) to write it again from the seed.`);
      return xpub;
    }
    if (!existsSync(seedFile)) {
      const made = await makeWallet(seedFile, xpubFile);
      if (made !== undefined) return made;
      continue;
    }
    if (options.readsSeed) {
      const seed = seedFromHex(await readFile(seedFile, 'utf8'));
      if (!seed) throw new StartupError(`The deposit seed at ${seedFile} is not a seed of 16 to 64 bytes written in hex.`);
      const derived = accountXpubOf(seed);
      await writeOnce(xpubFile, derived);
      return derived;
    }
    if (Date.now() > deadline) {
      throw new StartupError(`${xpubFile} is missing beside the deposit seed, and this role never reads the seed: start the all-in-one (npm start) once to write it, or set DEPOSIT_XPUB.`);
    }
    await sleep(50);
  }
}

/** The embedded default's seed (hex), its wallet made on first use: for what acts as the processor (`npm run chain`, the benchmarks). */
export async function embeddedDepositSeed(config: { dataDir: string }): Promise<string> {
  await embeddedDepositXpub(config.dataDir, { readsSeed: true });
  return (await readFile(path.join(config.dataDir, SEED_FILE), 'utf8')).trim();
}
