import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { toHex, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ACCOUNT_PATH, SEED_FILE, seedFromHex } from '../../core/deposit-wallet.ts';
import { StartupError } from '../../core/errors.ts';

// The processor's keys (issue 22, must have 1): only the processor role loads the deposit seed.
// The service holds the account xpub (m/44'/60'/0'/0) and derives deposit address i as its child i;
// the processor derives the same child's private key to sign that address's authorizations. The
// gas wallet is on another hardened account, m/44'/60'/1'/0/0, which the xpub cannot derive: a
// leaked xpub reveals no key, and the service's deposit addresses never meet the gas wallet.
// No key, and not the seed, is ever logged: they live only in this module's private fields.

export const GAS_WALLET_PATH = "m/44'/60'/1'/0/0";

export class ProcessorKeys {
  readonly #account: HDKey;
  readonly #gasWallet: PrivateKeyAccount;
  readonly #deposits = new Map<number, PrivateKeyAccount>();

  constructor(seed: Uint8Array) {
    const root = HDKey.fromMasterSeed(seed);
    this.#account = root.derive(ACCOUNT_PATH);
    const gas = root.derive(GAS_WALLET_PATH).privateKey;
    if (!gas) throw new Error('the seed gave no gas wallet key');
    this.#gasWallet = privateKeyToAccount(toHex(gas));
  }

  /** The account's extended public key: what the service derives deposit addresses from. */
  get xpub(): string {
    return this.#account.publicExtendedKey;
  }

  /** The gas wallet, which pays every forward's gas. */
  get gasWallet(): PrivateKeyAccount {
    return this.#gasWallet;
  }

  /** Deposit address `index`'s signer (child `index` of the account key). */
  deposit(index: number): PrivateKeyAccount {
    let account = this.#deposits.get(index);
    if (!account) {
      const key = this.#account.deriveChild(index).privateKey;
      if (!key) throw new Error(`deposit key ${index} could not be derived`);
      account = privateKeyToAccount(toHex(key));
      this.#deposits.set(index, account);
    }
    return account;
  }

  /** Never shows a key, however it is printed. */
  toJSON(): { xpub: string; gasWallet: string } {
    return { xpub: this.xpub, gasWallet: this.#gasWallet.address };
  }
}

/** Who besides the owner may read a file of this mode, in words; undefined: nobody. */
function otherReaders(mode: number): string | undefined {
  const who = [mode & 0o040 ? 'its group' : '', mode & 0o004 ? 'others' : ''].filter(Boolean);
  return who.length > 0 ? who.join(' and ') : undefined;
}

/**
 * Loads the deposit seed for the processor role: PROCESSOR_SEED_FILE if set, else the embedded
 * default's DATA_DIR/deposit-wallet.seed. Refuses, in one sentence, a seed that is missing, readable
 * by group or others, or not hex, or whose account xpub is not the one the service derives deposit addresses from.
 */
export async function loadProcessorKeys(options: { seedFile: string | undefined; dataDir: string; serviceXpub: string }): Promise<ProcessorKeys> {
  const file = options.seedFile ?? path.join(options.dataDir, SEED_FILE);
  const named = options.seedFile ? 'PROCESSOR_SEED_FILE' : `the embedded default's seed (${file})`;
  let text: string;
  try {
    // The mode is checked before the seed is read: a key others can read is refused, not used.
    const { mode } = await stat(file);
    const readers = otherReaders(mode);
    if (readers !== undefined) {
      throw new StartupError(`The deposit seed ${file} (mode ${(mode & 0o777).toString(8)}) can be read by ${readers}: chmod 600 ${file}, so only the processor's user can read it.`);
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`The processor cannot read ${named} at ${file}: set PROCESSOR_SEED_FILE to the deposit seed's file (hex).`);
  }
  const seed = seedFromHex(text);
  if (!seed) throw new StartupError(`${named} at ${file} is not a seed of 16 to 64 bytes written in hex.`);
  const keys = new ProcessorKeys(seed);
  if (keys.xpub !== options.serviceXpub) {
    throw new StartupError(`The deposit seed's account key (${keys.xpub}) is not the one the service derives deposit addresses from (${options.serviceXpub}): set DEPOSIT_XPUB and PROCESSOR_SEED_FILE to the same wallet.`);
  }
  return keys;
}
