import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_ACTIONS } from '../../src/audit/actions.ts';
import { ACCEPTED_COINS } from '../../src/core/payment-request.ts';
import { NETWORK_COINS } from '../../src/core/networks-config.ts';
import { KEY_KINDS } from '../../src/resources/api-keys/schemas.ts';
import { CHECKOUT_KINDS } from '../../src/resources/checkouts/schemas.ts';
import { PAYMENT_SOURCES } from '../../src/resources/payments/schemas.ts';
import { PAYMENT_STATUSES } from '../../src/resources/shared/payment-status.ts';
import { activityName, checkoutKindName, coinAmount, coinName, DELIVERY_STATUS_BADGES, KEY_KIND_NAMES, PAYMENT_STATUS_BADGES, sourceName } from '../../src/dashboard/wording.ts';

// Every code the service defines has a name people read (dashboard/wording.ts), so a new activity
// type, coin, kind or status cannot reach a page raw. A name is words: no underscore, no dot code.

const SRC = path.join(import.meta.dirname, '../../src');
const sources = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
  .flatMap((entry) => (entry.isDirectory() ? sources(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : []));

const isWords = (name: string) => /^[A-Z]/.test(name) && !/[_]|\w\.\w/.test(name);

describe('human names', () => {
  it('every activity action recorded anywhere in src is listed, and each listed one has a name in words', () => {
    const recorded = new Set<string>();
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:recordActivity|changeBusiness)\([^;]*?'([a-z_]+\.[a-z_.]+)'/gs)) recorded.add(match[1]!);
    }
    expect(recorded.size, 'the scan finds the calls').toBeGreaterThan(10);
    expect([...recorded].filter((action) => !(ACTIVITY_ACTIONS as readonly string[]).includes(action))).toEqual([]);
    for (const action of ACTIVITY_ACTIONS) expect(isWords(activityName(action)), `${action}: ${activityName(action)}`).toBe(true);
    expect(activityName('api_key.created')).toBe('API key created');
    expect(activityName('something.never_seen'), 'an old row is still shown in words').toBe('Something never seen');
  });

  it('every coin the service knows, kind of object and status has a name in words', () => {
    const coins = new Set([...Object.values(NETWORK_COINS).flat(), ...Object.keys(ACCEPTED_COINS)]);
    for (const coin of coins) expect(isWords(coinName(coin)), coin).toBe(true);
    expect(coinName('polygon_usdc')).toBe('USDC on Polygon');
    for (const source of PAYMENT_SOURCES) expect(isWords(sourceName(source)), source).toBe(true);
    for (const kind of CHECKOUT_KINDS) expect(isWords(checkoutKindName(kind)), kind).toBe(true);
    for (const kind of KEY_KINDS) expect(isWords(KEY_KIND_NAMES[kind]), kind).toBe(true);
    for (const status of PAYMENT_STATUSES) expect(isWords(PAYMENT_STATUS_BADGES[status][0]), status).toBe(true);
    for (const [status, [label]] of Object.entries(DELIVERY_STATUS_BADGES)) expect(isWords(label), status).toBe(true);
  });

  it('a coin amount keeps its significant digits, at least two decimals', () => {
    expect(coinAmount('103.680000', 'polygon_usdc')).toBe('103.68 USDC on Polygon');
    expect(coinAmount('0.000001', 'base_usdc')).toBe('0.000001 USDC on Base');
    expect(coinAmount('25.000000', 'ethereum_usdc')).toBe('25.00 USDC on Ethereum');
    expect(coinAmount('14.405000', null)).toBe('14.405');
  });
});
