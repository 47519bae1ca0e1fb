import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

// AES-256-GCM for secrets the service must read back (webhook signing secrets).
// Layout: version byte, 12-byte nonce, 16-byte tag, ciphertext.
const VERSION = 1;

export class SecretBox {
  readonly #key: Buffer;
  /** Each purpose's tag key, derived once (purposes are a few constants of ours). */
  readonly #tagKeys = new Map<string, KeyObject>();

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The secret encryption key must be 32 bytes.');
    this.#key = key;
  }

  /** A keyed digest of `text` for `purpose` (base64url): the same in every process sharing the key. */
  tag(purpose: string, text: string): string {
    let key = this.#tagKeys.get(purpose);
    if (key === undefined) {
      key = createSecretKey(createHmac('sha256', this.#key).update(`tag:${purpose}`).digest());
      this.#tagKeys.set(purpose, key);
    }
    return createHmac('sha256', key).update(text).digest('base64url');
  }

  seal(plaintext: string): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer): string {
    if (sealed[0] !== VERSION) throw new Error('Unknown secret format.');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(1, 13));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
  }
}
