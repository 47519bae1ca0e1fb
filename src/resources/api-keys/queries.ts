import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../db/database.ts';
import { scoped } from '../../db/owned.ts';
import type { ApiKeyRow } from '../../db/schema.ts';

// Secret keys of the caller's business and mode.
function keys(db: Db, principal: Principal, id?: string) {
  return scoped(db.selectFrom('api_keys').selectAll(), 'api_keys', principal, id);
}

export async function getApiKey(db: Db, principal: Principal, id: string): Promise<ApiKeyRow> {
  const row = await keys(db, principal, id).executeTakeFirst();
  if (!row) throw notFound('secret key', id);
  return row;
}

/** Every key of the caller's business and mode, newest first (a business holds a few dozen at most). */
export async function listApiKeyRows(db: Db, principal: Principal): Promise<ApiKeyRow[]> {
  return keys(db, principal).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}
