import { chmod, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import { DepositAddresses } from '../../src/core/deposit-addresses.ts';
import { StartupError } from '../../src/core/errors.ts';
import { GAS_WALLET_PATH, loadProcessorKeys } from '../../src/processor/chain/keys.ts';
import { TEST_DEPOSIT_WALLET } from '../support/harness.ts';

// The processor's keys: the seed read only by the processor role, from PROCESSOR_SEED_FILE or the
// embedded default's DATA_DIR/deposit-wallet.seed, refused unless its account xpub is the
// service's, and never shown however the keys are printed.

const SEED = Buffer.alloc(32, 7);
const XPUB = TEST_DEPOSIT_WALLET.publicExtendedKey;

async function folderWith(name: string, text: string): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'processor-keys-'));
  await writeFile(path.join(folder, name), text, { mode: 0o600 });
  return folder;
}

describe('loadProcessorKeys', () => {
  it('reads PROCESSOR_SEED_FILE: deposit key i signs for the service\'s deposit address i', async () => {
    const folder = await folderWith('seed.hex', `${SEED.toString('hex')}\n`);
    const keys = await loadProcessorKeys({ seedFile: path.join(folder, 'seed.hex'), dataDir: '/nonexistent', serviceXpub: XPUB });
    const service = new DepositAddresses(XPUB);
    for (const index of [0, 1, 41]) expect(keys.deposit(index).address).toBe(service.address(index));
    // The gas wallet is on a hardened path of its own: no xpub of the service derives it.
    expect(keys.gasWallet.address.toLowerCase()).toBe(
      new DepositAddresses(HDKey.fromMasterSeed(SEED).derive("m/44'/60'/1'/0").publicExtendedKey).address(0).toLowerCase());
    expect(GAS_WALLET_PATH).toBe("m/44'/60'/1'/0/0");
  });

  it('reads the embedded default\'s DATA_DIR/deposit-wallet.seed when PROCESSOR_SEED_FILE is unset', async () => {
    const folder = await folderWith('deposit-wallet.seed', SEED.toString('hex'));
    const keys = await loadProcessorKeys({ seedFile: undefined, dataDir: folder, serviceXpub: XPUB });
    expect(keys.xpub).toBe(XPUB);
  });

  it.each([
    ['a seed of another wallet than DEPOSIT_XPUB', Buffer.alloc(32, 8).toString('hex'), /^The deposit seed's account key \(xpub\w+\) is not the one the service derives deposit addresses from \(xpub\w+\): set DEPOSIT_XPUB and PROCESSOR_SEED_FILE to the same wallet\.$/],
    ['a file that is not hex', 'correct horse battery staple', /^PROCESSOR_SEED_FILE at .+ is not a seed of 16 to 64 bytes written in hex\.$/],
  ])('refuses to start with %s, in one sentence', async (_, text, message) => {
    const folder = await folderWith('seed.hex', text);
    const loading = loadProcessorKeys({ seedFile: path.join(folder, 'seed.hex'), dataDir: folder, serviceXpub: XPUB });
    await expect(loading).rejects.toBeInstanceOf(StartupError);
    await expect(loading).rejects.toThrow(message);
  });

  it.each([
    ['640', 'its group'],
    ['604', 'others'],
    ['644', 'its group and others'],
  ])('refuses a seed file of mode %s, readable by %s, in one sentence naming the file and the fix', async (octal, readers) => {
    const mode = Number.parseInt(octal, 8);
    const folder = await folderWith('seed.hex', SEED.toString('hex'));
    const file = path.join(folder, 'seed.hex');
    await chmod(file, mode);
    const loading = loadProcessorKeys({ seedFile: file, dataDir: folder, serviceXpub: XPUB });
    await expect(loading).rejects.toBeInstanceOf(StartupError);
    await expect(loading).rejects.toThrow(`The deposit seed ${file} (mode ${octal}) can be read by ${readers}: chmod 600 ${file}, so only the processor's user can read it.`);
    // The embedded default's seed in DATA_DIR is held to the same.
    await writeFile(path.join(folder, 'deposit-wallet.seed'), SEED.toString('hex'), { mode });
    await chmod(path.join(folder, 'deposit-wallet.seed'), mode);
    await expect(loadProcessorKeys({ seedFile: undefined, dataDir: folder, serviceXpub: XPUB })).rejects.toThrow('chmod 600');
  });

  it('takes a seed file only its owner can read (0600, 0400)', async () => {
    const folder = await folderWith('seed.hex', SEED.toString('hex'));
    for (const mode of [0o600, 0o400]) {
      await chmod(path.join(folder, 'seed.hex'), mode);
      expect((await loadProcessorKeys({ seedFile: path.join(folder, 'seed.hex'), dataDir: folder, serviceXpub: XPUB })).xpub).toBe(XPUB);
    }
  });

  it('refuses to start without a seed file', async () => {
    await expect(loadProcessorKeys({ seedFile: '/nonexistent/seed.hex', dataDir: '/nonexistent', serviceXpub: XPUB }))
      .rejects.toThrow('The processor cannot read PROCESSOR_SEED_FILE at /nonexistent/seed.hex: set PROCESSOR_SEED_FILE to the deposit seed\'s file (hex).');
  });

  it('never shows a key or the seed, however the keys are printed', async () => {
    const folder = await folderWith('seed.hex', SEED.toString('hex'));
    const keys = await loadProcessorKeys({ seedFile: path.join(folder, 'seed.hex'), dataDir: folder, serviceXpub: XPUB });
    keys.deposit(0);
    const secrets = [SEED.toString('hex'), Buffer.from(TEST_DEPOSIT_WALLET.deriveChild(0).privateKey!).toString('hex'), HDKey.fromMasterSeed(SEED).privateExtendedKey];
    for (const shown of [inspect(keys, { depth: 10, showHidden: true }), JSON.stringify(keys), String(keys)]) {
      for (const secret of secrets) expect(shown).not.toContain(secret);
    }
  });
});

it('only the processor role loads the seed: no file under src/ reads it but the embedded default\'s start and the processor\'s keys', async () => {
  const root = path.join(import.meta.dirname, '../../src');
  const readers: string[] = [];
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(file);
      // (core/config-docs.ts names the file in the configuration's documentation: words, not a reader.)
      else if (file.endsWith('.ts') && !file.endsWith('config-docs.ts') && /fromMasterSeed|deposit-wallet\.seed|loadProcessorKeys\(/.test(await readFile(file, 'utf8'))) readers.push(path.relative(root, file));
    }
  };
  await walk(root);
  // core/deposit-wallet.ts makes the embedded default's seed with its xpub beside it (and derives a missing xpub only for
  // the all-in-one and the processor); main.ts loads the keys for --role processor (and all); the operator's
  // `processor sweep` (cli/processor.ts) signs a stray token's move where the seed is, and loads it only when run.
  expect(readers.sort()).toEqual(['cli/processor.ts', 'core/deposit-wallet.ts', 'main.ts', 'processor/chain/keys.ts']);
});
