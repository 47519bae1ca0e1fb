import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DAY, MINUTE } from '../core/clock.ts';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import type { Db } from '../db/database.ts';
import { personByEmail } from '../tenancy/businesses.ts';
import { announceAuthChange } from '../db/auth-changes.ts';
import { hashSecret } from './secret-keys.ts';

// People's dashboard sessions and the CLI's sign-in links. Only hashes are stored; the session
// cookie is HttpOnly, SameSite=Lax and Secure (with the __Host- prefix) when the service is https.

export const SESSION_TTL_MS = 12 * 60 * MINUTE;
export const SIGN_IN_LINK_TTL_MS = 15 * MINUTE;
/**
 * What only a person who just proved who they are may do (changing where the money goes) needs
 * a sign-in this recent: a session left open, or stolen, is not enough. A constant, as the
 * session's and sign-in link's lifetimes are.
 */
export const RECENT_SIGN_IN_MS = 10 * MINUTE;

export interface SessionDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'baseUrl'>;
}

export interface DashboardSession {
  personId: string;
  email: string;
  csrfToken: string;
  /** The zone the person reads times in (UTC until they choose one). */
  timeZone: string;
  /** When the person signed in: the session opens then and is never extended. */
  signedInAt: Date;
}

export function sessionCookieName(baseUrl: string): string {
  return baseUrl.startsWith('https://') ? '__Host-ps_session' : 'ps_session';
}

export function cookieOptions(baseUrl: string, maxAgeSeconds: number) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: baseUrl.startsWith('https://'), maxAge: maxAgeSeconds };
}

/** Only a dashboard path (printable ASCII, no backslash) is a place to go after signing in. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && next.length <= 2048 && /^\/dashboard(\/|\?|$)/.test(next) && /^[\x21-\x7e]+$/.test(next) && !next.includes('\\') ? next : '/dashboard';
}

/** Whether a sign-in at `signedInAt` (null: not known) is recent enough at `now` for what needs one. */
export function signedInRecently(signedInAt: Date | null, now: Date): boolean {
  return signedInAt !== null && now.getTime() - signedInAt.getTime() <= RECENT_SIGN_IN_MS;
}

/** A single-use sign-in link for a person (the CLI's `login-link`). */
export async function createSignInLink(deps: SessionDeps, email: string, next?: string): Promise<{ url: string; expiresAt: Date } | undefined> {
  const person = await personByEmail(deps.db, email);
  if (!person) return undefined;
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  await deps.db.insertInto('sign_in_links').values({ token_hash: hashSecret(token), person_id: person.id, created_at: now, expires_at: expiresAt }).execute();
  return { url: signInLinkUrl(deps.config.baseUrl, token, next), expiresAt };
}

/** Where a sign-in link's token is used (its page shows a button: mail scanners must not use links up). */
export function signInLinkUrl(baseUrl: string, token: string, next?: string): string {
  const then = next === undefined ? '' : `&next=${encodeURIComponent(next)}`;
  return `${baseUrl}/dashboard/sign-in/link?token=${token}${then}`;
}

/** Uses a sign-in link (once) and opens a session; returns the session cookie's value. */
export async function useSignInLink(deps: SessionDeps, token: string): Promise<string | undefined> {
  const now = deps.clock.now();
  const used = await deps.db.updateTable('sign_in_links').set({ used_at: now })
    .where('token_hash', '=', hashSecret(token)).where('used_at', 'is', null).where('expires_at', '>', now)
    .returning('person_id').executeTakeFirst();
  return used ? openSession(deps, used.person_id) : undefined;
}

export async function openSession(deps: SessionDeps, personId: string): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  await deps.db.insertInto('dashboard_sessions').values({
    id_hash: hashSecret(id), person_id: personId, csrf_token: randomBytes(24).toString('base64url'),
    created_at: now, expires_at: new Date(now.getTime() + SESSION_TTL_MS),
  }).execute();
  return id;
}

/** A session as pages use it, from its row joined with its person. */
export function sessionOf(row: { person_id: string; email: string; csrf_token: string; time_zone: string | null; created_at: Date }): DashboardSession {
  return { personId: row.person_id, email: row.email, csrfToken: row.csrf_token, timeZone: row.time_zone ?? 'UTC', signedInAt: row.created_at };
}

export async function findSession(deps: SessionDeps, id: string | undefined): Promise<DashboardSession | undefined> {
  if (!id) return undefined;
  const row = await deps.db.selectFrom('dashboard_sessions as s').innerJoin('people as p', 'p.id', 's.person_id')
    .select(['s.person_id', 's.csrf_token', 's.expires_at', 's.created_at', 'p.email', 'p.time_zone'])
    .where('s.id_hash', '=', hashSecret(id)).executeTakeFirst();
  if (!row || row.expires_at <= deps.clock.now()) return undefined;
  return sessionOf(row);
}

export async function closeSession(deps: SessionDeps, id: string | undefined): Promise<void> {
  if (!id) return;
  await deps.db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashSecret(id)).execute();
  // Kept sessions are forgotten at once here (other servers: the table's NOTIFY, migration 0020).
  announceAuthChange();
}

/** Whether `zone` is an IANA time zone this runtime knows (as people type it: Europe/Berlin). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64 || !/^[A-Za-z][\w+-]*(\/[\w+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The person's own time zone for the dashboard's times (their preference, in no business). */
export async function setTimeZone(deps: SessionDeps, personId: string, zone: string): Promise<void> {
  await deps.db.updateTable('people').set({ time_zone: zone === 'UTC' ? null : zone }).where('id', '=', personId).execute();
  announceAuthChange();
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Removes expired sessions and used or expired sign-in links (retention). */
export async function forgetExpiredSessions(deps: Pick<SessionDeps, 'db' | 'clock'>): Promise<number> {
  const now = deps.clock.now();
  const sessions = await deps.db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).executeTakeFirst();
  const links = await deps.db.deleteFrom('sign_in_links').where('expires_at', '<=', new Date(now.getTime() - DAY)).executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(links.numDeletedRows);
}
