import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';

// Live deposit addresses: one fresh EVM address per started payment, derived from the
// processor's extended public key (BIP-32, non-hardened child i of the account key), so the
// service never holds the keys that can move the money.

export function toChecksumAddress(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i] ?? '0', 16) >= 8 ? (lower[i] ?? '').toUpperCase() : lower[i];
  return out;
}

/**
 * Whether a 0x address's letter case passes its EIP-55 checksum. An address in one case (all
 * lowercase, or all uppercase hex) carries no checksum, and EIP-55 accepts it unchecked.
 */
export function checksumHolds(address: string): boolean {
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return toChecksumAddress(hex) === `0x${hex}`;
}

/** The EVM address of a secp256k1 public key (compressed or not). */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  const hash = keccak_256(uncompressed.subarray(1));
  return toChecksumAddress(Buffer.from(hash.subarray(12)).toString('hex'));
}

export class DepositAddresses {
  readonly #account: HDKey;

  constructor(extendedPublicKey: string) {
    this.#account = HDKey.fromExtendedKey(extendedPublicKey);
    if (this.#account.privateKey) throw new Error('DEPOSIT_XPUB must be an extended public key (xpub), never a private one.');
  }

  /** The account's extended public key (the processor checks its seed against it). */
  get xpub(): string {
    return this.#account.publicExtendedKey;
  }

  address(index: number): string {
    const child = this.#account.deriveChild(index);
    if (!child.publicKey) throw new Error('Could not derive a deposit address.');
    return addressOfPublicKey(child.publicKey);
  }
}
