import { expect } from 'vitest';
import { unixSeconds } from '../../src/core/clock.ts';
import type { BusinessChanges } from './harness.ts';
import type { ApiResponse, TestApp, TestBusiness } from './harness.ts';

// Helpers the HTTP tests share on top of the harness: accounts with keys, the calls on a
// collection, and the common checks of an answer. Each takes the app it works on.

/** A valid payment link create body (10.00 USD for tea). */
export const LINK_BODY = { amount: '10.00', currency: 'USD', description: 'Tea' };

/** A new business and one secret key of it. */
export interface Account {
  biz: TestBusiness;
  key: string;
}

/** Makes a business with `changes` applied and a secret key of it in `mode`. */
export async function account(t: TestApp, changes: BusinessChanges = {}, mode: 'test' | 'live' = 'test'): Promise<Account> {
  const biz = await t.business(changes);
  return { biz, key: (await biz.key({ mode })).secret };
}

/** A new business with one Test and one Live secret key. */
export interface BothModesAccount {
  biz: TestBusiness;
  test: string;
  live: string;
}

/** Makes a business, then a Test and a Live secret key of it. */
export async function accountInBothModes(t: TestApp): Promise<BothModesAccount> {
  const biz = await t.business();
  return { biz, test: (await biz.key({ mode: 'test' })).secret, live: (await biz.key({ mode: 'live' })).secret };
}

/** Query parameters of a list call; numbers are sent as their decimal text. */
export type ListQuery = Record<string, string | number>;

/** The create (POST) and list (GET) calls on one collection path, such as `/v1/payment_links`. */
export interface Collection {
  /** POSTs `body` as JSON with `key`. */
  create(key: string, body: unknown): Promise<ApiResponse>;
  /** GETs a page with `key`, `query` as the query string (none when empty). */
  list(key: string, query?: ListQuery): Promise<ApiResponse>;
}

/**
 * The calls on `path` of the app that `app` returns. A function, because a test file's app is
 * only made in its beforeAll, after the file has bound its collections.
 */
export function collection(app: () => TestApp, path: string): Collection {
  return {
    create: (key, body) => app().request('POST', path, { key, body }),
    list: (key, query = {}) => {
      const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
      return app().request('GET', qs ? `${path}?${qs}` : path, { key });
    },
  };
}

/** Checks that `res` is a 201 (the body is the failure message) and returns the created object. */
export function expectCreated(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The ids of a list page, in order. */
export function ids(res: ApiResponse): string[] {
  return res.body.data.map((item: { id: string }) => item.id);
}

/**
 * Checks that `res` answers `status` with exactly `{ error: { code, message } }` (plus `field`
 * when given), and that the message is not blank.
 */
export function expectError(res: ApiResponse, status: number, code: string, field?: string): void {
  const error = field === undefined ? { code, message: expect.any(String) } : { code, message: expect.any(String), field };
  expect(res.body, `status ${res.status}`).toStrictEqual({ error });
  expect(res.status).toBe(status);
  expect(res.body.error.message.trim()).not.toBe('');
  // The field names the parameter the message speaks of (the message may name it by its last
  // part: "amount must be…" for order.items.0.amount; metadata's keys are the merchant's own).
  const named = field?.startsWith('metadata.') ? 'metadata' : field?.split('.').filter((part) => !/^\d+$/.test(part)).at(-1);
  if (named !== undefined) expect(res.body.error.message, `message names ${field}`).toContain(named);
}

/** The app clock's time in Unix seconds, as the API answers times. */
export function nowSeconds(t: TestApp): number {
  return unixSeconds(t.clock.now());
}
