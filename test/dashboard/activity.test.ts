import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordActivity } from '../../src/audit/activity.ts';
import { ACTIVITY_ACTIONS, type ActivityAction, type ActivityDetails } from '../../src/audit/actions.ts';
import { activityName } from '../../src/dashboard/wording.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/events/types.ts';
import { connectAgent } from '../support/agents.ts';
import { Browser, textOf } from '../support/browser.ts';
import { csrfOf, dashboardMerchant, type DashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

// Issue 31: every entry of the account's activity reads in people's words. Each activity type
// the code defines (ACTIVITY_ACTIONS; the samples are typed by it, so a new type cannot be left
// out) is written with the details its verb records, nulls, booleans and typed names among them,
// beside entries the real verbs wrote; the served page's Who and What must read as sentences.
// And the home's count of held payments agrees with its verb.

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ RATE_LIMITS: 'off' }); });
afterAll(async () => t?.close());

const HOSTILE = '<script>alert(1)</script>';
const WALLET = '0x2222222222222222222222222222222222222222';
const URL_ = 'https://hooks.shop.example/payments';

/** What each verb records, one or more ways: the types are the writers' own. */
const SAMPLES: { [A in ActivityAction]: ActivityDetails[A][] } = {
  'agent.connected': [
    { client_id: 'https://agent.example/client.json', client_name: HOSTILE, access: 'full', scopes: ['payments:read', 'checkouts:write', 'orders:write'] },
    { client_id: 'https://agent.example/other.json', client_name: null, access: 'read_only', scopes: ['payments:read'] },
  ],
  'agent.disconnected': [{ why: 'disconnected_in_dashboard' }, { why: 'refresh_token_reused' }, { why: 'authorization_code_reused' }, { why: 'revoked_by_client' }],
  'agent.policy_changed': [{ live_needs_approval: true, limits: ['USD 50.00 per payment, 200.00 a day'] }, { live_needs_approval: false, limits: [] }],
  'agent_approval.approved': [{ operation: 'create_payment_link', connection_id: 'con_0123456789abcdef01234567' }],
  'agent_approval.declined': [{ operation: 'delete_webhook_endpoint', connection_id: 'con_0123456789abcdef01234567' }],
  'agent_approval.requested': [{ operation: 'create_checkout_session', reasons: ['this agent\'s Live creates and changes each need a person\'s approval', '60.00 USD is over this agent\'s limit of 50.00 USD per payment'] }],
  'agent_approval.used': [{ operation: 'simulate_payment' }],
  'agent_approval.withdrawn': [{ operation: 'create_payment_link', connection_id: 'con_0123456789abcdef01234567' }],
  'api_key.created': [{ kind: 'api', access: 'read_only', name: HOSTILE }, { kind: 'plugin', access: 'full', name: null }],
  'api_key.revoked': [{ removed_webhook_endpoints: [] }, { removed_webhook_endpoints: ['we_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ'] }],
  'business.logo_removed': [{ sha256: 'ab'.repeat(32) }],
  'business.logo_set': [{ content_type: 'image/png', byte_size: 20_480, sha256: 'cd'.repeat(32), width: 240, height: 80 }],
  'business.payout_wallet_changed': [{ payout_wallet: WALLET, payout_wallet_before: null }, { payout_wallet: null, payout_wallet_before: WALLET }],
  'business.settings_updated': [{ commerce: 'paused', crypto_enabled: true, brand_color: null }, { disable: ['api'], enable: ['payment_links', 'checkouts'], brand_color: '#1a2b3c' }],
  'business.updated': [{ status: 'suspended', fee_bps: 150, payout_wallet: WALLET, payout_wallet_before: null }, { commerce: 'active', crypto_enabled: false, status: 'active', fee_bps: 0 }, {}],
  'checkout.deleted': [{}],
  'checkout.updated': [{ changed: ['name', 'description', 'amount_minor', 'success_url', 'button_label', 'crypto', 'routing', 'collect'] }],
  'customer.erased': [{ orders: 1, payments: 2, events: 0 }],
  'customer.note_saved': [{}],
  'member.role_set': [{ email: 'dev@shop.example', role: 'developer' }, { email: 'ow@shop.example', role: 'owner' }],
  'payment.accepted': [{ hold_reason: 'Less than the amount asked arrived.' }, { hold_reason: null }],
  'payment.remainder_requested': [{ remainder_id: 'pay_N7pL3kWq9Xc2Vb8RmT4HsY6e', amount: '9.60', currency: 'USD' }],
  'webhook_endpoint.created': [{ url: URL_, events: [...PAYMENT_EVENT_TYPES] }, { url: URL_, events: ['payment.paid', 'payment.held'] }],
  'webhook_endpoint.deleted': [{}],
  'webhook_endpoint.removed_gone': [{ url: URL_ }],
  'webhook_endpoint.replay_requested': [{ since: 1_772_600_000, total: 3 }],
  'webhook_endpoint.secret_rolled': [{ keep_previous: true }, { keep_previous: false }],
  'webhook_endpoint.updated': [{ description: null }, { url: URL_, events: ['payment.paid'], description: HOSTILE }],
};

/** Raw values and codes no person should read. */
const RAW = /\b(null|undefined|true|false|NaN)\b|\[object|\b[a-z]+(?:_[a-z]+)+\b|\b(?:before|after)\s*:|Checkout session \(API\)/;

/** The Activity table's rows on every page of it, each cell as served and as read. */
async function activityRows(m: DashboardMerchant): Promise<{ who: string; what: string; whatHtml: string }[]> {
  const rows = [];
  let path: string | null = m.area('settings');
  while (path) {
    const page = await m.owner.request('GET', path);
    expect(page.status).toBe(200);
    const table = page.html.slice(page.html.indexOf('aria-label="Activity"'), page.html.indexOf('</table>', page.html.indexOf('aria-label="Activity"')));
    for (const row of table.split('<tbody>')[1]!.matchAll(/<tr>(.*?)<\/tr>/gs)) {
      const cell = (label: string) => new RegExp(`<td data-label="${label}">(.*?)</td>`, 's').exec(row[1]!)?.[1] ?? '';
      rows.push({ who: textOf(cell('Who')), what: textOf(cell('What')), whatHtml: cell('What') });
    }
    const older = /<a href="([^"]+)" rel="next">/.exec(page.html)?.[1];
    path = older ? older.replace(/&amp;/g, '&') : null;
  }
  return rows;
}

it('every activity type, as its verb writes it, reads in people\'s words: who did it and what, no raw value or code, typed names escaped', async () => {
  const m = await dashboardMerchant(t, 'Activity Roasters');
  // What the real verbs write: a key without a name (the merchant's own, and one from the page),
  // a webhook endpoint added by that key, stablecoin payments off, the integrations, a new wallet.
  const keysPath = m.area('keys');
  expect((await m.owner.request('POST', keysPath, { csrf: csrfOf((await m.owner.request('GET', keysPath)).html), name: '', access: 'read_only' })).status).toBe(303);
  expect((await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url: 'https://hooks.shop.example/real' } })).status).toBe(201);
  const settings = m.area('settings');
  const csrf = csrfOf((await m.owner.request('GET', settings)).html);
  expect((await m.owner.request('POST', settings, { csrf, crypto_enabled: 'off' })).status).toBe(303);
  expect((await m.owner.request('POST', settings, { csrf, integrations: 'set', integration_api: 'on', integration_checkouts: 'on' })).status).toBe(303);
  const asked = await m.owner.request('POST', settings, { csrf, payout_wallet: WALLET });
  expect((await m.owner.request('POST', asked.location!, Browser.form((await m.owner.request('GET', asked.location!)).html, asked.location!))).status).toBe(303);

  // Every type by the audit writer, each by another kind of actor.
  const person = await t.db.selectFrom('people').select('id').where('email', '=', m.ownerEmail).executeTakeFirstOrThrow();
  const { connection } = await connectAgent(t, m.biz);
  const actors = [`key:${m.keyId}`, `person:${person.id}`, `agent:${connection.id}`, 'operator', 'service', 'client:https://agent.example/client.json'];
  let written = 0;
  for (const action of ACTIVITY_ACTIONS) {
    for (const details of SAMPLES[action] as Record<string, unknown>[]) {
      await recordActivity(t.db, { businessId: m.biz.id, livemode: false, actor: actors[written % actors.length]! }, action, `sub_${written}`, details as never, t.clock.now());
      written += 1;
    }
  }

  const rows = await activityRows(m);
  expect(rows.length).toBeGreaterThan(written);
  const shown = new Set<string>();
  for (const { who, what, whatHtml } of rows) {
    const action = ACTIVITY_ACTIONS.find((each) => what.split('\n')[0] === activityName(each));
    expect(action, `a named type: ${what}`).toBeDefined();
    shown.add(action!);
    for (const line of [who, ...what.split('\n')]) {
      // People's emails (the test's hold a business id) are what they are.
      expect.soft(line.replace(/\S+@\S+/g, 'an email'), `${action}: ${what}`).not.toMatch(RAW);
      expect.soft(line.trim(), `${action}: ${what}`).not.toBe('');
    }
    // A line of details is a sentence: it begins as one (or with the person it is about), and is not "field: value".
    for (const line of what.split('\n').slice(1)) expect.soft(line, `${action}: ${line}`).toMatch(/^(?:[A-Z0-9“]|\S+@\S+ )/);
    expect.soft(whatHtml, 'what merchants and agents typed stays text').not.toContain('<script>');
  }
  expect([...shown].sort()).toEqual([...ACTIVITY_ACTIONS].sort());

  const text = rows.map((row) => `${row.who} | ${row.what}`).join('\n');
  // The reported ones, as the real verbs wrote them.
  expect(text).toMatch(/API key created\nAPI key, read only, no name/);
  expect(text).toContain('Stablecoin payments turned off');
  expect(text).toContain(`Payout wallet set to ${WALLET} (it was 0x1111111111111111111111111111111111111111)`);
  expect(text).toContain('Description removed');
  expect(text).toContain(`“${HOSTILE}”`);
  expect(text).toMatch(/secret key sk_test_\S+ \| Webhook endpoint added/);
});

it('the home counts held payments in a sentence that agrees: 1 needs you, 2 need you', async () => {
  const m = await dashboardMerchant(t);
  const hold = async () => {
    const session = (await t.request('POST', '/v1/checkout_sessions', { key: m.key, body: { amount: '18.00', currency: 'USD', description: 'Beans', customer_email: 'ada@buyer.example' } })).body;
    await t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key: m.key });
    expect((await t.request('POST', `/v1/payments/${session.id}/simulate`, { key: m.key, body: { outcome: 'underpaid' } })).body).toMatchObject({ status: 'held' });
  };
  const home = async () => textOf((await m.viewer.request('GET', m.area('home'))).html).replace(/\s+/g, ' ');
  await hold();
  expect(await home()).toContain('1 payment is held and needs you');
  await hold();
  expect(await home()).toContain('2 payments are held and need you');
});
