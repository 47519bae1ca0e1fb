import { ApiError } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import { newId } from '../core/ids.ts';
import { announceAuthChange } from '../db/auth-changes.ts';
import type { Db } from '../db/database.ts';
import type { BusinessRow, Integration, Role } from '../db/schema.ts';
import { atLeast } from './roles.ts';

// Businesses (the spec's accounts), people and their memberships: the tenancy every principal
// is built from. The verbs people call on them (team, settings) are in resources/.

export const INTEGRATIONS: readonly Integration[] = ['api', 'payment_links', 'checkouts'];
export const PAYOUT_WALLET = /^0x[0-9a-fA-F]{40}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** As the API takes an email (RFC 5321's limit). */
const EMAIL_MAX = 254;

/** A person's email as every entry point takes it: trimmed, lowercased, an address, at most 254 characters. */
export function personEmail(email: string, field = 'email'): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized)) throw new ApiError('invalid_email', `${field} must be an email address.`, field);
  if (normalized.length > EMAIL_MAX) throw new ApiError('invalid_email', `${field} is too long (at most ${EMAIL_MAX} characters).`, field);
  return normalized;
}

/** What a principal carries of its business: the account's state every verb may consult. */
export type BusinessState = Pick<BusinessRow,
  'id' | 'name' | 'status' | 'commerce' | 'disabled_integrations' | 'payout_wallet' | 'crypto_enabled' | 'fee_bps'>;

export const BUSINESS_STATE_COLUMNS = ['id', 'name', 'status', 'commerce', 'disabled_integrations', 'payout_wallet', 'crypto_enabled', 'fee_bps'] as const;

/**
 * Suspended and archived accounts change nothing (spec 7.2: 403 merchant_read_only): every
 * changing action and operation asks this, in the verb's definition, whoever calls.
 */
export function assertWritable(business: Pick<BusinessState, 'status'>): void {
  if (business.status !== 'active') {
    throw new ApiError('merchant_read_only', `This account is ${business.status}; it cannot create or change anything.`);
  }
}

/** The business's state out of a row that holds more (a join's). */
export function businessStateOf(row: BusinessState): BusinessState {
  return Object.fromEntries(BUSINESS_STATE_COLUMNS.map((column) => [column, row[column]])) as BusinessState;
}

/** A business's state, or not_found. */
export async function businessState(db: Db, businessId: string): Promise<BusinessState> {
  const row = await db.selectFrom('businesses').select(BUSINESS_STATE_COLUMNS).where('id', '=', businessId).executeTakeFirst();
  if (!row) throw new ApiError('not_found', `No business with id '${businessId}' exists.`);
  return row;
}

/** A business as the operator's list shows it: its state and its owners' emails. */
export type BusinessListing = Pick<BusinessRow, 'id' | 'name' | 'status' | 'commerce'> & { owners: string[] };

/** Every business, oldest first, with its owners: the operator's directory, in no business's scope. */
export async function listBusinesses(db: Db): Promise<BusinessListing[]> {
  const rows = await db.selectFrom('businesses as b')
    .leftJoin('memberships as m', (join) => join.onRef('m.business_id', '=', 'b.id').on('m.role', '=', 'owner'))
    .leftJoin('people as p', 'p.id', 'm.person_id')
    .select(['b.id', 'b.name', 'b.status', 'b.commerce', 'p.email'])
    .orderBy('b.created_at').orderBy('b.id').orderBy('p.email')
    .execute();
  const listed = new Map<string, BusinessListing>();
  for (const { email, ...business } of rows) {
    const entry = listed.get(business.id) ?? { ...business, owners: [] };
    if (email !== null) entry.owners.push(email);
    listed.set(business.id, entry);
  }
  return [...listed.values()];
}

export async function findOrCreatePerson(db: Db, email: string, now: Date): Promise<string> {
  // Every way a person comes to be (a team form, the CLI, a new business's owner) takes the same rules.
  const normalized = personEmail(email);
  const row = await db
    .insertInto('people')
    .values({ id: newId('per'), email: normalized, created_at: now })
    .onConflict((conflict) => conflict.column('email').doUpdateSet({ email: normalized }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Opens a business with its first owner: the one thing the operator does outside any business
 * (there is none yet to act in).
 */
export async function createBusiness(db: Db, clock: Clock, input: { name: string; ownerEmail: string }): Promise<BusinessRow> {
  if (input.name.trim() === '') throw new ApiError('missing_name', 'A business needs a name.', 'name');
  personEmail(input.ownerEmail, 'owner');
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

/** Adds a person to a business with a role (a member already keeps theirs); whether they were added. */
export async function addMember(db: Db, businessId: string, personId: string, role: Role, now: Date): Promise<boolean> {
  const added = await db.insertInto('memberships').values({ business_id: businessId, person_id: personId, role, created_at: now })
    .onConflict((conflict) => conflict.columns(['business_id', 'person_id']).doNothing())
    .returning('person_id').executeTakeFirst();
  return added !== undefined;
}

/** The person with this email (any letter case), if one is known. */
export async function personByEmail(db: Db, email: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('people').select('id').where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

/** The businesses a person belongs to (with at least `minimum` role), by name: their own list, in no business's scope. */
export async function businessesOf(db: Db, personId: string, minimum: Role = 'viewer'): Promise<Array<{ id: string; name: string; role: Role }>> {
  const rows = await db.selectFrom('memberships as m').innerJoin('businesses as b', 'b.id', 'm.business_id')
    .select(['b.id', 'b.name', 'm.role']).where('m.person_id', '=', personId).orderBy('b.name').orderBy('b.id').execute();
  return rows.filter((row) => atLeast(row.role, minimum));
}
