import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/clock.ts';
import { Browser } from '../support/browser.ts';
import { runCli } from '../support/cli.ts';
import { dashboardMerchant } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// Send test event, limited per endpoint (issue 21): each is a signed request to someone's address
// at once, so a few a minute (RATE_LIMIT_TEST_EVENTS_PER_MINUTE, 5 by default). Past it the
// dashboard shows its page again with a notice and sends nothing; the CLI, calling the same
// action, gets 429 rate_limited too. The app runs on the system clock's time, as the CLI does.

let t: TestApp;
let receiver: Receiver;
let dataDir: string;
beforeAll(async () => {
  t = await startTestApp({}, { clockStart: Date.now() });
  receiver = await startReceiver();
  dataDir = await mkdtemp(path.join(tmpdir(), 'test-limit-'));
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('the dashboard sends 5 test events a minute per endpoint, then shows why not (429), sends nothing, and the CLI is refused too', async () => {
  const m = await dashboardMerchant(t);
  const endpoint = async (url: string) => {
    const created = await t.request('POST', '/v1/webhook_endpoints', { key: m.key, body: { url } });
    expect(created.status).toBe(201);
    return { id: created.body.id as string, page: `${m.area('webhooks')}/${created.body.id}` };
  };
  const first = await endpoint(`${receiver.url}/first`);
  const other = await endpoint(`${receiver.url}/other`);
  const send = async (at: { page: string }) => {
    const page = await m.developer.request('GET', at.page);
    return m.developer.request('POST', `${at.page}/test`, Browser.form(page.html, `${at.page}/test`));
  };
  const received = (name: string) => receiver.received.filter((request) => request.path === `/${name}`).length;

  for (let i = 0; i < 5; i += 1) expect((await send(first)).status).toBe(303);
  const refused = await send(first);
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('60');
  expect(refused.html).toContain('role="alert"');
  expect(refused.html).toContain('Not sent. This endpoint passed its limit of 5 test events a minute. Retry after 60 seconds.');
  // Still the endpoint's page, its form there to use again.
  expect(refused.html).toContain('<h2 id="test-heading">Send a test event</h2>');
  expect(received('first')).toBe(5);
  expect(await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', first.id).execute()).toHaveLength(5);

  const cli = await runCli(t, ['webhooks', 'test', first.id, '--json'], { DATA_DIR: dataDir });
  expect(cli.code).toBe(1);
  expect(JSON.parse(cli.stdout || cli.stderr).error).toMatchObject({ code: 'rate_limited' });
  expect(received('first')).toBe(5);

  // Another endpoint has its own; a minute later this one sends again.
  expect((await send(other)).status).toBe(303);
  await t.jump(MINUTE);
  expect((await send(first)).status).toBe(303);
  expect(received('first')).toBe(6);
});
