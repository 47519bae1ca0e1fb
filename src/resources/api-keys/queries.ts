import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ownedRows } from '../../db/owned.ts';
import type { ApiKeyRow } from '../../db/schema.ts';

// A key is found only in the caller's business and mode: a key of the other mode is as unknown as another business's.
const keys = ownedRows({ what: 'secret key', table: 'api_keys', rows: (db) => db.selectFrom('api_keys').selectAll() });

export const getApiKey = keys.get;

/** Every key of the caller's business and mode, newest first (a business holds a few dozen at most). */
export async function listApiKeyRows(db: Db, principal: Principal): Promise<ApiKeyRow[]> {
  return keys.query(db, principal).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}
