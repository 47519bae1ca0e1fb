import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { LogoContentType } from '../../db/schema.ts';

// The brand as stored (migrations/0033) and the addresses it is served at. The addresses carry
// a hash of what they serve, so each is cached for a year and a change is a new address; an
// old or unknown hash is not found.

/** What a payer page needs of the brand: read with the business's name, never the logo's bytes. */
export interface Brand {
  color: string | null;
  /** The logo's sha256 (hex); null: no logo. */
  logo: string | null;
}

export const NO_BRAND: Brand = { color: null, logo: null };

/** How many hex characters of the hash name an asset: 64 bits, plenty against collisions of one business's logos. */
const HASH_CHARACTERS = 16;
export const ASSET_HASH = new RegExp(`^[0-9a-f]{${HASH_CHARACTERS}}$`);

const colorHash = (color: string) => createHash('sha256').update(color).digest('hex').slice(0, HASH_CHARACTERS);

/** The logo's address: `/assets/logos/<business>/<hash>`. */
export function logoPath(businessId: string, sha256: string): string {
  return `/assets/logos/${encodeURIComponent(businessId)}/${sha256.slice(0, HASH_CHARACTERS)}`;
}

/** The brand stylesheet's address: `/assets/brand/<business>.<hash of the colour>.css`. */
export function brandStylesheetPath(businessId: string, color: string): string {
  return `/assets/brand/${encodeURIComponent(businessId)}.${colorHash(color)}.css`;
}

/** The business's logo when `hash` names the one it has now. */
export async function findLogo(db: Db, businessId: string, hash: string): Promise<{ content_type: LogoContentType; content: Buffer } | undefined> {
  if (!ASSET_HASH.test(hash)) return undefined;
  return db.selectFrom('business_logos').select(['content_type', 'content'])
    .where('business_id', '=', businessId).where((eb) => eb.fn('left', ['sha256', eb.val(HASH_CHARACTERS)]), '=', hash)
    .executeTakeFirst();
}

/** The business's brand colour when `hash` names the one it has now. */
export async function findBrandColor(db: Db, businessId: string, hash: string): Promise<string | undefined> {
  if (!ASSET_HASH.test(hash)) return undefined;
  const row = await db.selectFrom('businesses').select('brand_color').where('id', '=', businessId).executeTakeFirst();
  return row?.brand_color && colorHash(row.brand_color) === hash ? row.brand_color : undefined;
}
