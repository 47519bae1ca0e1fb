import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import pg from 'pg';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../src/db/embedded.ts';
import { startTestApp, TEST_SECRETS, type TestApp } from './support/harness.ts';
import { Browser } from './support/browser.ts';
import { runCommandLineHere } from './support/cli.ts';
import { startReceiver, verifiesWith } from './support/receiver.ts';

const run = promisify(execFile);
let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => t?.close());

/**
 * Runs a command line as the CLI does, in this process (runCommandLineHere); with --json, stdout
 * must be exactly one JSON object. `process` runs the real CLI process instead, for what only a
 * process shows: its data folder and the embedded database it starts or joins.
 */
async function cli(args: string[], given: Record<string, string | undefined> = { DATABASE_URL: t.config.databaseUrl }, where: 'here' | 'process' = 'here') {
  // The test app's deposit wallet, unless the command has a data folder of its own (where the CLI finds or makes one).
  const env = 'DATA_DIR' in given ? given : { DEPOSIT_XPUB: TEST_SECRETS.depositXpub, ...given };
  // Vite puts BASE_URL=/ in the test process's environment; an operator's shell has none.
  if (where === 'here') return runCommandLineHere(args, { ...process.env, BASE_URL: undefined, LOG_LEVEL: 'silent', ...env });
  try {
    // Vite puts BASE_URL=/ in the test process's environment; an operator's shell has none.
    const merged: Record<string, string | undefined> = { ...process.env, BASE_URL: undefined, LOG_LEVEL: 'silent', ...env };
    const childEnv = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const { stdout, stderr } = await run(process.execPath, ['src/cli.ts', ...args], { env: childEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function json(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('operator CLI', () => {
  it('creates a business, keys that work on the API, updates and revokes', async () => {
    const business = json((await cli(['business', 'create', '--name', 'Corner Shop', '--owner', 'Owner@Shop.example', '--json'])).stdout);
    expect(business.id).toMatch(/^biz_/);
    const person = await t.db.selectFrom('people').select('email').executeTakeFirst();
    expect(person?.email).toBe('owner@shop.example');

    const key = json((await cli(['keys', 'create', '--business', business.id, '--mode', 'test', '--json'])).stdout);
    expect(key.secret).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(key.scopes).toEqual(['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read', 'webhooks:read', 'webhooks:write']);
    const stored = await t.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(stored.secret_hash.toString('hex')).not.toContain(key.secret);
    expect(JSON.stringify(stored)).not.toContain(key.secret.slice(8));

    const readOnly = json((await cli(['keys', 'create', '--business', business.id, '--mode', 'live', '--access', 'read_only', '--json'])).stdout);
    expect(readOnly.secret).toMatch(/^sk_live_/);
    expect(readOnly.scopes).toEqual(['payments:read', 'orders:read', 'customers:read']);
    const plugin = json((await cli(['keys', 'create', '--business', business.id, '--mode', 'test', '--kind', 'plugin', '--json'])).stdout);
    expect(plugin.scopes).toEqual(['payments:read', 'checkouts:write', 'orders:read', 'orders:write', 'customers:read']);

    expect((await t.request('GET', '/v1/payment_links', { key: key.secret })).status).toBe(200);

    const updated = json((await cli(['business', 'update', business.id, '--commerce', 'paused', '--disable', 'checkouts,api',
      '--payout-wallet', '0x2222222222222222222222222222222222222222', '--crypto', 'off', '--fee-bps', '150', '--json'])).stdout);
    expect(updated).toMatchObject({ commerce: 'paused', disabled_integrations: ['api', 'checkouts'], crypto_enabled: false, fee_bps: 150 });
    const created = await t.request('POST', '/v1/payment_links', { key: key.secret, body: { amount: '5.00', currency: 'USD', description: 'x' } });
    expect(created.body.error.code, JSON.stringify(created)).toBe('integration_disabled');
    json((await cli(['business', 'update', business.id, '--enable', 'api', '--commerce', 'active', '--json'])).stdout);
    expect((await t.request('POST', '/v1/payment_links', { key: key.secret, body: { amount: '5.00', currency: 'USD', description: 'x' } })).status).toBe(201);

    const revoked = await cli(['keys', 'revoke', key.id, '--json']);
    expect(revoked.code).toBe(0);
    expect(json(revoked.stdout).revoked).not.toBeNull();
    expect((await t.request('GET', '/v1/payment_links', { key: key.secret })).status).toBe(401);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const missing = await cli(['keys', 'create', '--mode', 'test', '--json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--business');
    const badMode = await cli(['keys', 'create', '--business', 'biz_x', '--mode', 'prod']);
    expect(badMode.code).toBe(2);
    const noBusiness = await cli(['keys', 'create', '--business', 'biz_nope', '--mode', 'test', '--json']);
    expect(noBusiness.code).toBe(1);
    expect(json(noBusiness.stdout).error.message).toContain('biz_nope');
    const wallet = await cli(['business', 'update', 'biz_nope', '--payout-wallet', 'not-a-wallet']);
    expect(wallet.code).toBe(1);
    expect((await cli(['frobnicate'])).code).toBe(2);
  });

  it('demo prints a business, a Test key, a curl line that works, and how to sign in as its owner', async () => {
    const demo = json((await cli(['demo', '--json'])).stdout);
    expect(demo.secret).toMatch(/^sk_test_/);
    expect(demo.curl).toContain(demo.secret);
    expect((await t.request('POST', '/v1/payment_links', { key: demo.secret, body: { amount: '25.00', currency: 'USD', description: 'Coffee beans' } })).status).toBe(201);
    expect(demo.owner).toBe('owner@demo.example');
    expect(demo.sign_in).toBe('npm run --silent cli -- login-link --email owner@demo.example');

    const text = await cli(['demo']);
    expect(text.stdout).toContain('owned by owner@demo.example');
    expect(text.stdout).toContain('\n  npm run --silent cli -- login-link --email owner@demo.example\n');
    // The printed command, run as printed, signs its owner in to the dashboard, where the demo business is.
    const link = await cli([...demo.sign_in.replace('npm run --silent cli -- ', '').split(' '), '--json']);
    expect(link.code, link.stderr).toBe(0);
    const url = new URL(json(link.stdout).url);
    const browser = new Browser(t);
    expect((await browser.signInWith(`${url.pathname}${url.search}`)).status).toBe(303);
    expect((await browser.request('GET', '/dashboard')).html).toContain(demo.business);
  });

  it('business list: every business with its status, commerce and owners', async () => {
    const shop = json((await cli(['business', 'create', '--name', 'Listed Shop', '--owner', 'first@listed.example', '--json'])).stdout);
    json((await cli(['members', 'set', '--business', shop.id, '--email', 'second@listed.example', '--role', 'owner', '--json'])).stdout);
    json((await cli(['members', 'set', '--business', shop.id, '--email', 'dev@listed.example', '--role', 'developer', '--json'])).stdout);
    json((await cli(['business', 'update', shop.id, '--commerce', 'paused', '--status', 'suspended', '--json'])).stdout);
    const list = json((await cli(['business', 'list', '--json'])).stdout);
    expect(list.data.find((b: { id: string }) => b.id === shop.id)).toEqual({
      id: shop.id, name: 'Listed Shop', status: 'suspended', commerce: 'paused', owners: ['first@listed.example', 'second@listed.example'],
    });
    const ids = list.data.map((b: { id: string }) => b.id);
    expect(ids).toHaveLength(new Set(ids).size);
    const text = await cli(['business', 'list']);
    expect(text.stdout).toContain(`${shop.id}  Listed Shop  suspended  commerce paused  first@listed.example, second@listed.example\n`);
  });

  it('on a suspended account: refuses what changes it (merchant_read_only, exit 1), revokes keys, and the operator can lift the suspension', async () => {
    const shop = json((await cli(['business', 'create', '--name', 'Frozen Shop', '--owner', 'owner@frozen.example', '--json'])).stdout);
    const key = json((await cli(['keys', 'create', '--business', shop.id, '--mode', 'test', '--json'])).stdout);
    json((await cli(['business', 'update', shop.id, '--status', 'suspended', '--json'])).stdout);
    for (const args of [['keys', 'create', '--business', shop.id, '--mode', 'live'], ['members', 'set', '--business', shop.id, '--email', 'late@frozen.example', '--role', 'owner']]) {
      const refused = await cli(args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr, args.join(' ')).toContain('This account is suspended; it cannot create or change anything.');
    }
    expect(await t.db.selectFrom('api_keys').select('id').where('business_id', '=', shop.id).execute()).toHaveLength(1);
    expect((await cli(['keys', 'revoke', key.id, '--json'])).code).toBe(0);
    expect(json((await cli(['business', 'update', shop.id, '--status', 'active', '--json'])).stdout).status).toBe('active');
    expect((await cli(['keys', 'create', '--business', shop.id, '--mode', 'live', '--json'])).code).toBe(0);
  });

  it('says so, exiting 1, when a command names a business or an object that does not exist', async () => {
    const env = { DATABASE_URL: t.config.databaseUrl, SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64') };
    const cases: Array<[string[], string]> = [
      [['business', 'update', 'biz_nope', '--commerce', 'paused'], "No business with id 'biz_nope' exists."],
      [['members', 'set', '--business', 'biz_nope', '--email', 'a@b.example'], "No business with id 'biz_nope' exists."],
      [['members', 'list', '--business', 'biz_nope'], "No business with id 'biz_nope' exists."],
      [['keys', 'create', '--business', 'biz_nope', '--mode', 'test'], "No business with id 'biz_nope' exists."],
      [['keys', 'list', '--business', 'biz_nope'], "No business with id 'biz_nope' exists."],
      [['keys', 'revoke', 'key_nope'], "No API key with id 'key_nope' exists."],
      [['login-link', '--email', 'nobody@nowhere.example'], 'No person with the email nobody@nowhere.example'],
      [['payments', 'accept', 'pay_nope'], "No payment with id 'pay_nope' exists."],
      [['payments', 'ask-rest', 'pay_nope'], "No payment with id 'pay_nope' exists."],
      [['customers', 'erase', 'cus_nope'], "No customer with id 'cus_nope' exists."],
      [['webhooks', 'log', 'we_nope'], "No webhook endpoint with id 'we_nope' exists."],
      [['webhooks', 'attempts', 'whd_nope'], "No webhook delivery with id 'whd_nope' exists."],
      [['webhooks', 'retry', 'whd_nope'], "No webhook delivery with id 'whd_nope' exists."],
      [['webhooks', 'resend', 'whd_nope'], "No webhook delivery with id 'whd_nope' exists."],
      [['webhooks', 'test', 'we_nope'], "No webhook endpoint with id 'we_nope' exists."],
      [['webhooks', 'roll-secret', 'we_nope'], "No webhook endpoint with id 'we_nope' exists."],
      [['webhooks', 'update', 'we_nope', '--description', 'x'], "No webhook endpoint with id 'we_nope' exists."],
    ];
    await Promise.all(cases.map(async ([args, message], index) => {
      const text = await cli(args, env);
      expect(text.code, args.join(' ')).toBe(1);
      expect(text.stdout, args.join(' ')).toBe('');
      expect(text.stderr, args.join(' ')).toBe(`Refused (not_found): ${message}${message.endsWith('.') ? '' : '; add them with members set first.'}\n`);
      if (index % 5 !== 0) return; // with --json, the same error as the API's (one mapper): a few suffice
      const asJson = await cli([...args, '--json'], env);
      expect(asJson.code, args.join(' ')).toBe(1);
      expect(json(asJson.stdout).error, args.join(' ')).toMatchObject({ code: 'not_found', message: expect.stringContaining(message) });
    }));
  }, 120_000);

  it('uses the embedded database: starting it when nothing runs, joining it when the server runs', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cli-embedded-'));
    const port = String(await freePort());
    const env = { DATABASE_URL: undefined, DATA_DIR: dataDir, EMBEDDED_PG_PORT: port };
    try {
      const first = await cli(['business', 'create', '--name', 'Alone', '--owner', 'a@b.example', '--json'], env, 'process');
      expect(first.code, first.stderr).toBe(0);
      const server = await startEmbedded({ dataDir, port: Number(port) });
      try {
        expect(server.owned).toBe(true);
        const second = await cli(['demo', '--json'], env, 'process');
        expect(second.code, second.stderr).toBe(0);
        expect(json(second.stdout).secret).toMatch(/^sk_test_/);
      } finally {
        await server.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('two checkouts on one machine (issue 14, finding 5)', () => {
  it('each data folder keeps its own cluster on its own port, and the CLI says when it uses one no server runs on', async () => {
    const [a, b] = [await mkdtemp(path.join(tmpdir(), 'checkout-a-')), await mkdtemp(path.join(tmpdir(), 'checkout-b-'))];
    // Neither sets EMBEDDED_PG_PORT, as two clones started with `npm start` would not.
    const serverA = await startEmbedded({ dataDir: a });
    try {
      const fromB = await cli(['business', 'create', '--name', 'Shop B', '--owner', 'b@b.example', '--json'], { DATABASE_URL: undefined, DATA_DIR: b, EMBEDDED_PG_PORT: undefined }, 'process');
      expect(fromB.code, fromB.stderr).toBe(0);
      expect(fromB.stderr).toContain(`No server is running on ${b}; this command uses its embedded PostgreSQL (${path.join(b, 'pg')}, port `);
      const portB = Number((await readFile(path.join(b, 'pg-port'), 'utf8')).trim());
      expect(portB).not.toBe(serverA.port);
      // The CLI of checkout A joins A's running cluster, says nothing, and sees none of B's rows.
      const fromA = await cli(['business', 'create', '--name', 'Shop A', '--owner', 'a@a.example', '--json'], { DATABASE_URL: undefined, DATA_DIR: a, EMBEDDED_PG_PORT: undefined }, 'process');
      expect(fromA.code, fromA.stderr).toBe(0);
      expect(fromA.stderr).toBe('');
      const db = new pg.Client({ connectionString: serverA.url });
      await db.connect();
      try {
        expect((await db.query('SELECT name FROM businesses ORDER BY name')).rows.map((row) => row.name)).toEqual(['Shop A']);
      } finally {
        await db.end();
      }
      // B's cluster comes back on the port it recorded, while A still holds its own.
      const serverB = await startEmbedded({ dataDir: b });
      try {
        expect(serverB.port).toBe(portB);
      } finally {
        await serverB.stop();
      }
    } finally {
      await serverA.stop();
      await Promise.all([a, b].map((dir) => rm(dir, { recursive: true, force: true })));
    }
  }, 120_000);
});

describe('payments', () => {
  it('ask-rest asks the buyer of a held underpayment for the rest once, and says so again when asked twice', async () => {
    const biz = await t.business();
    const key = (await biz.key()).secret;
    const session = (await t.request('POST', '/v1/checkout_sessions', { key, body: { amount: '20.00', currency: 'USD', customer_email: 'ada@buyer.example' } })).body;
    await t.request('POST', `/v1/checkout_sessions/${session.id}/start`, { key });
    expect((await t.request('POST', `/v1/payments/${session.id}/simulate`, { key, body: { outcome: 'underpaid', amount_received: '15.00' } })).body.status).toBe('held');
    const asked = json((await cli(['payments', 'ask-rest', session.id, '--json'])).stdout);
    expect(asked).toMatchObject({ created: true, status: 'open', amount: '5.00', currency: 'USD', url: expect.stringContaining(`/pay/${asked.id}`) });
    const again = await cli(['payments', 'ask-rest', session.id]);
    expect(again.stdout).toContain(`Already asked for the rest of ${session.id}: 5.00 USD`);
    expect((await t.db.selectFrom('payments').select('order_id').where('id', '=', asked.id).executeTakeFirstOrThrow()).order_id).toBe(session.order_id);
  });
});

describe('members', () => {
  it('sets roles, keeps one owner, and says who manages keys', async () => {
    const business = json((await cli(['business', 'create', '--name', 'Team', '--owner', 'boss@team.example', '--json'])).stdout);
    const dev = json((await cli(['members', 'set', '--business', business.id, '--email', 'Dev@Team.example', '--role', 'developer', '--json'])).stdout);
    expect(dev).toMatchObject({ email: 'dev@team.example', role: 'developer', manages_keys: true });
    const viewer = json((await cli(['members', 'set', '--business', business.id, '--email', 'dev@team.example', '--role', 'viewer', '--json'])).stdout);
    expect(viewer.manages_keys).toBe(false);
    const lastOwner = await cli(['members', 'set', '--business', business.id, '--email', 'boss@team.example', '--role', 'viewer', '--json']);
    expect(lastOwner.code).toBe(1);
    expect(json(lastOwner.stdout).error.message).toContain('owner');
    const list = json((await cli(['members', 'list', '--business', business.id, '--json'])).stdout);
    expect(list.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([['boss@team.example', 'owner'], ['dev@team.example', 'viewer']]);
  });

  it('adds a person as a viewer when no role is given; a member keeps their role', async () => {
    const business = json((await cli(['business', 'create', '--name', 'Defaults', '--owner', 'boss@defaults.example', '--json'])).stdout);
    const added = await cli(['members', 'set', '--business', business.id, '--email', 'new@defaults.example']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`new@defaults.example is now viewer of ${business.id}.`);
    const owner = json((await cli(['members', 'set', '--business', business.id, '--email', 'boss@defaults.example', '--json'])).stdout);
    expect(owner).toMatchObject({ email: 'boss@defaults.example', role: 'owner' });
    expect((await cli(['members', 'set', '--business', business.id, '--email', 'x@defaults.example', '--role', 'admin'])).code).toBe(2);
  });
});

describe('webhooks', () => {
  it('sends test events, shows the log and attempts, resends, rolls the secret and edits the endpoint', async () => {
    const receiver = await startReceiver();
    const env = { DATABASE_URL: t.config.databaseUrl, SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64') };
    try {
      const key = (await (await t.business()).key()).secret;
      const endpoint = (await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: `${receiver.url}/cli` } })).body;

      const sent = json((await cli(['webhooks', 'test', endpoint.id, '--event', 'payment.paid', '--json'], env)).stdout);
      expect(sent).toMatchObject({ succeeded: true, status_code: 200, error: null });
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ id: sent.event_id, type: 'payment.paid', data: { order: { id: 'ord_sample' } } });

      const log = json((await cli(['webhooks', 'log', endpoint.id, '--json'], env)).stdout);
      expect(log.data).toEqual([expect.objectContaining({ id: sent.delivery_id, kind: 'test', event_type: 'payment.paid', status: 'succeeded', manual_attempts: 1 })]);
      expect((await cli(['webhooks', 'log', endpoint.id], env)).stdout).toContain(sent.delivery_id);

      const resent = json((await cli(['webhooks', 'resend', sent.delivery_id, '--json'], env)).stdout);
      expect(resent).toMatchObject({ event_id: sent.event_id, succeeded: true });
      expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
      const attempts = json((await cli(['webhooks', 'attempts', sent.delivery_id, '--json'], env)).stdout);
      expect(attempts.data.map((attempt: { trigger: string }) => attempt.trigger)).toEqual(['test', 'resend']);

      const retry = await cli(['webhooks', 'retry', sent.delivery_id], env);
      expect(retry.code).toBe(1);
      expect(retry.stderr).toContain('not retrying; resend it instead');

      const rolled = json((await cli(['webhooks', 'roll-secret', endpoint.id, '--keep-previous', '--json'], env)).stdout);
      expect(rolled.secret).toMatch(/^whsec_/);
      expect(rolled.previous_secret_expires_at).toBeGreaterThan(0);
      await cli(['webhooks', 'test', endpoint.id], env);
      const header = receiver.received[2]!.headers['service-signature'] as string;
      // The CLI runs on the system clock: both secrets sign during the overlap.
      const now = Math.floor(Date.now() / 1000);
      expect(verifiesWith(header, rolled.secret, receiver.received[2]!.body, now)).toBe(true);
      expect(verifiesWith(header, endpoint.secret, receiver.received[2]!.body, now)).toBe(true);

      const updated = json((await cli(['webhooks', 'update', endpoint.id, '--events', 'payment.paid,payment.failed', '--description', 'Orders', '--json'], env)).stdout);
      expect(updated).toMatchObject({ id: endpoint.id, events: ['payment.paid', 'payment.failed'], description: 'Orders' });
      const badEvents = await cli(['webhooks', 'update', endpoint.id, '--events', 'payment.nope'], env);
      expect(badEvents.code).toBe(1);
      expect(badEvents.stderr).toContain('is not an event type');
      const badUrl = await cli(['webhooks', 'update', endpoint.id, '--url', 'https://10.0.0.1/hooks'], env);
      expect(badUrl.code).toBe(1);
      expect(badUrl.stderr).toContain('url must be on the public internet');
      expect((await cli(['webhooks', 'test', endpoint.id, '--event', 'refund.made'], env)).code).toBe(2);
      expect((await cli(['webhooks', 'log', 'we_missing'], env)).code).toBe(1);
    } finally {
      await receiver.close();
    }
  }, 90_000); // a dozen CLI processes, each starting Node and the runtime
});

describe('the encryption key', () => {
  it('refuses to start with a key that does not open the secrets the database holds, naming where the key came from', async () => {
    const key = (await (await t.business()).key()).secret;
    expect((await t.request('POST', '/v1/webhook_endpoints', { key, body: { url: 'https://hooks.example.com/sealed' } })).status).toBe(201);
    const right = { DATABASE_URL: t.config.databaseUrl, SECRET_ENCRYPTION_KEY: TEST_SECRETS.encryptionKey.toString('base64') };
    expect((await cli(['business', 'list', '--json'], right)).code).toBe(0);

    const other = await cli(['business', 'list', '--json'], { ...right, SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(other.code).toBe(1);
    expect(other.stdout).toBe('');
    expect(other.stderr).toContain('The encryption key (SECRET_ENCRYPTION_KEY) does not open the secrets this database holds (webhook endpoints\' signing secrets, agents\' signing keys)');

    // A lost key file: a new one was made without a word; now the start is refused, and no key made.
    const folder = await mkdtemp(path.join(tmpdir(), 'cli-key-'));
    const file = path.join(folder, 'secret-encryption.key');
    try {
      const lost = await cli(['business', 'list', '--json'], { DATABASE_URL: t.config.databaseUrl, DATA_DIR: folder, DEPOSIT_XPUB: TEST_SECRETS.depositXpub });
      expect(lost.code).toBe(1);
      expect(lost.stderr).toContain(`${file} is missing, and this database holds secrets sealed with a key`);
      expect(existsSync(file)).toBe(false);
      // Another key in that file is named as the key that does not open them.
      await writeFile(file, `${Buffer.alloc(32, 9).toString('base64')}\n`, { mode: 0o600 });
      const wrong = await cli(['business', 'list', '--json'], { DATABASE_URL: t.config.databaseUrl, DATA_DIR: folder, DEPOSIT_XPUB: TEST_SECRETS.depositXpub });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(`The encryption key (${file}) does not open the secrets this database holds`);
      // The key kept with the database opens them.
      await writeFile(file, `${TEST_SECRETS.encryptionKey.toString('base64')}\n`);
      expect((await cli(['business', 'list', '--json'], { DATABASE_URL: t.config.databaseUrl, DATA_DIR: folder, DEPOSIT_XPUB: TEST_SECRETS.depositXpub })).code).toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
