import { removeEndpoints } from '../webhook-endpoints/remove.ts';
import { RefusedError } from '../../core/errors.ts';
import type { Clock } from '../../core/clock.ts';
import { newId } from '../../core/ids.ts';
import type { Db } from '../../db/database.ts';
import type { ApiKeyRow, KeyAccess, KeyKind } from '../../db/schema.ts';
import { announceAuthChange } from '../../db/auth-changes.ts';
import { scopesForKey, type Scope } from '../../auth/scopes.ts';
import { generateSecretKey, hashSecret, secretHint } from '../../auth/secret-keys.ts';

// Creating and revoking secret keys (CLI now, dashboard later). The secret is returned once
// and never stored.

export class KeyAdminError extends RefusedError {}

export interface CreatedKey {
  key: ApiKeyRow;
  secret: string;
  scopes: readonly Scope[];
}

export async function createSecretKey(db: Db, clock: Clock, input: {
  businessId: string;
  livemode: boolean;
  access?: KeyAccess;
  kind?: KeyKind;
  name?: string | null;
  createdBy?: string | null;
}): Promise<CreatedKey> {
  const kind = input.kind ?? 'api';
  const access = input.access ?? 'full';
  if (kind === 'plugin' && access !== 'full') throw new KeyAdminError('E-commerce plugin keys always have full access.');
  if (kind === 'legacy' && access !== 'full') throw new KeyAdminError('Keys from before access levels have full access.');
  const business = await db.selectFrom('businesses').select('id').where('id', '=', input.businessId).executeTakeFirst();
  if (!business) throw new KeyAdminError(`No business ${input.businessId}.`);
  const secret = generateSecretKey(input.livemode);
  const key = await db
    .insertInto('api_keys')
    .values({
      id: newId('key'),
      business_id: input.businessId,
      livemode: input.livemode,
      kind,
      access,
      name: input.name ?? null,
      secret_hash: hashSecret(secret),
      secret_hint: secretHint(secret),
      created_by: input.createdBy ?? null,
      created_at: clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { key, secret, scopes: scopesForKey(kind, access) };
}

/**
 * Revokes a key; the webhook endpoints it added are removed with it (spec 4.4), their secrets
 * erased. Revoking an already revoked key changes nothing.
 */
export async function revokeSecretKey(db: Db, clock: Clock, keyId: string): Promise<{ key: ApiKeyRow; removedEndpoints: string[] }> {
  const now = clock.now();
  const result = await db.transaction().execute(async (trx) => {
    const key = await trx.selectFrom('api_keys').selectAll().where('id', '=', keyId).forUpdate().executeTakeFirst();
    if (!key) throw new KeyAdminError(`No key ${keyId}.`);
    if (key.revoked_at !== null) return { key, removedEndpoints: [] };
    const revoked = await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', keyId).returningAll().executeTakeFirstOrThrow();
    const removedEndpoints = await removeEndpoints(trx, (eb) => eb('api_key_id', '=', keyId), now);
    return { key: revoked, removedEndpoints };
  });
  announceAuthChange();
  return result;
}

export async function listSecretKeys(db: Db, businessId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('business_id', '=', businessId).orderBy('created_at', 'desc').execute();
}
