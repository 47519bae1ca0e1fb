import { RefusedError } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import type { BusinessRow, BusinessUpdate, Integration, Role } from '../db/schema.ts';
import { newId } from '../core/ids.ts';
import type { Clock } from '../core/clock.ts';
import { announceAuthChange } from '../db/auth-changes.ts';

// Businesses (the spec's accounts), people and their roles. Called by the CLI now and by the
// dashboard later; not part of the merchant API.

export const INTEGRATIONS: readonly Integration[] = ['api', 'payment_links', 'checkouts'];
export const PAYOUT_WALLET = /^0x[0-9a-fA-F]{40}$/;

export class TenancyError extends RefusedError {}

export async function findOrCreatePerson(db: Db, email: string, now: Date): Promise<string> {
  const normalized = email.trim().toLowerCase();
  const row = await db
    .insertInto('people')
    .values({ id: newId('per'), email: normalized, created_at: now })
    .onConflict((conflict) => conflict.column('email').doUpdateSet({ email: normalized }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function createBusiness(db: Db, clock: Clock, input: { name: string; ownerEmail: string }): Promise<BusinessRow> {
  if (input.name.trim() === '') throw new TenancyError('A business needs a name.');
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(input.ownerEmail)) throw new TenancyError('The owner must be an email address.');
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const business = await trx
      .insertInto('businesses')
      .values({ id: newId('biz'), name: input.name.trim(), created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    const personId = await findOrCreatePerson(trx, input.ownerEmail, now);
    await setRole(trx, business.id, personId, 'owner', now);
    return business;
  });
}

/** Gives a person a role in a business; who manages keys changes, so cached credentials are dropped. */
export async function setRole(db: Db, businessId: string, personId: string, role: Role, now: Date): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ business_id: businessId, person_id: personId, role, created_at: now })
    .onConflict((conflict) => conflict.columns(['business_id', 'person_id']).doUpdateSet({ role }))
    .execute();
  announceAuthChange();
}

export interface BusinessChanges {
  status?: 'active' | 'suspended' | 'archived';
  commerce?: 'active' | 'paused';
  payoutWallet?: string | null;
  cryptoEnabled?: boolean;
  feeBps?: number;
  disable?: Integration[];
  enable?: Integration[];
}

export async function updateBusiness(db: Db, clock: Clock, id: string, changes: BusinessChanges): Promise<BusinessRow> {
  if (changes.payoutWallet != null && !PAYOUT_WALLET.test(changes.payoutWallet)) {
    throw new TenancyError('The payout wallet must be a 0x-prefixed address of 40 hexadecimal characters.');
  }
  if (changes.feeBps !== undefined && (!Number.isInteger(changes.feeBps) || changes.feeBps < 0 || changes.feeBps > 10_000)) {
    throw new TenancyError('The fee must be a whole number of basis points from 0 to 10000.');
  }
  const updated = await db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('businesses').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!current) throw new TenancyError(`No business ${id}.`);
    const disabled = new Set(current.disabled_integrations);
    for (const integration of changes.disable ?? []) disabled.add(integration);
    for (const integration of changes.enable ?? []) disabled.delete(integration);
    const set: BusinessUpdate = { updated_at: clock.now(), disabled_integrations: INTEGRATIONS.filter((i) => disabled.has(i)) };
    if (changes.status !== undefined) set.status = changes.status;
    if (changes.commerce !== undefined) set.commerce = changes.commerce;
    if (changes.payoutWallet !== undefined) set.payout_wallet = changes.payoutWallet;
    if (changes.cryptoEnabled !== undefined) set.crypto_enabled = changes.cryptoEnabled;
    if (changes.feeBps !== undefined) set.fee_bps = changes.feeBps;
    return trx.updateTable('businesses').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
  announceAuthChange();
  return updated;
}

/** Owners and developers manage keys (and approve agents); viewers only look. */
/** Owners and developers manage keys and connect agents; no role (not a member) manages nothing. */
export function canManageKeys(role: Role | null | undefined): boolean {
  return role === 'owner' || role === 'developer';
}

export const ROLES: readonly Role[] = ['owner', 'developer', 'viewer'];

export async function setMember(db: Db, clock: Clock, input: { businessId: string; email: string; role: Role }): Promise<{ personId: string }> {
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(input.email)) throw new TenancyError('The member must be an email address.');
  const business = await db.selectFrom('businesses').select('id').where('id', '=', input.businessId).executeTakeFirst();
  if (!business) throw new TenancyError(`No business ${input.businessId}.`);
  const now = clock.now();
  const personId = await findOrCreatePerson(db, input.email, now);
  await db.transaction().execute(async (trx) => {
    // The owners' rows locked: two owners demoting each other at once cannot leave none.
    if (input.role !== 'owner') {
      const owners = await trx.selectFrom('memberships').select('person_id').where('business_id', '=', input.businessId).where('role', '=', 'owner').forUpdate().execute();
      if (owners.length === 1 && owners[0]?.person_id === personId) throw new TenancyError('A business keeps at least one owner.');
    }
    await setRole(trx, input.businessId, personId, input.role, now);
    // Whoever no longer manages keys no longer vouches for the agents they connected (spec 5.6).
    if (!canManageKeys(input.role)) {
      await trx.updateTable('agent_connections').set({ disconnected_at: now, disconnected_why: 'approver_no_longer_manages_keys' })
        .where('business_id', '=', input.businessId).where('approved_by', '=', personId).where('disconnected_at', 'is', null).execute();
    }
  });
  announceAuthChange();
  return { personId };
}

export async function listMembers(db: Db, businessId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .select(['p.id', 'p.email', 'm.role', 'm.created_at'])
    .where('m.business_id', '=', businessId)
    .orderBy('m.created_at')
    .execute();
}
