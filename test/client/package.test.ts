import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

// The client as another project gets it: `npm pack` (which builds dist/ with tsc), the tarball
// installed offline into a fresh project, its JavaScript run by Node against the running
// service, and a TypeScript consumer type-checked against its declarations (lib checks on).

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = path.join(ROOT, 'client');
// The npm settings of the `npm test` running this would otherwise steer the npm run here.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

let t: TestApp;
let project: string;
let builtBefore = false;
beforeAll(async () => {
  builtBefore = existsSync(path.join(CLIENT, 'dist'));
  t = await startTestApp({ RATE_LIMITS: 'off' });
  project = await mkdtemp(path.join(tmpdir(), 'client-consumer-'));
  await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: CLIENT, env });
  const tarball = (await readdir(project)).find((name) => name.endsWith('.tgz'));
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', `./${tarball}`], { cwd: project, env });
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (project) await rm(project, { recursive: true, force: true });
  // dist/ is the workspace's build too (npm install runs prepare): removed only if this test made it.
  if (!builtBefore) await rm(path.join(CLIENT, 'dist'), { recursive: true, force: true });
});

it('ships only the built JavaScript and declarations, with no dependencies', async () => {
  const installed = path.join(project, 'node_modules/@payment-service/client');
  const files = (await readdir(installed, { recursive: true })).map(String).sort();
  expect(files).toContain('dist/index.js');
  expect(files).toContain('dist/index.d.ts');
  expect(files.filter((file) => !file.startsWith('dist') && file !== 'package.json' && file !== 'README.md')).toEqual([]);
  expect((await readdir(path.join(project, 'node_modules'))).filter((name) => !name.startsWith('.'))).toEqual(['@payment-service']);
});

it('runs from the installed tarball against the service', async () => {
  const key = (await (await t.business()).key()).secret;
  await writeFile(path.join(project, 'journey.mjs'), `
import { PaymentService, PaymentServiceError, signWebhook, verifyWebhook } from '@payment-service/client';
const ps = new PaymentService({ apiKey: process.env.PAYMENT_SERVICE_KEY, baseUrl: process.env.PAYMENT_SERVICE_URL });
const link = await ps.createPaymentLink({ amount: '9.00', currency: 'USD', description: 'Packed' });
const refused = await ps.retrievePaymentLink({ id: 'pay_missing' }).catch((error) => error);
const body = JSON.stringify({ id: 'evt_1', type: 'ping', created: 1800000000, livemode: false, data: { payment: null, order: null, customer: null } });
const event = await verifyWebhook(body, await signWebhook(body, 'whsec_packed', 1800000000), 'whsec_packed', { now: new Date(1800000000000) });
console.log(JSON.stringify({ link: [link.object, link.status], refused: [refused instanceof PaymentServiceError, refused.code], event: event.type, from: import.meta.resolve('@payment-service/client') }));
`);
  const { stdout } = await run(process.execPath, ['journey.mjs'], { cwd: project, env: { ...env, PAYMENT_SERVICE_KEY: key, PAYMENT_SERVICE_URL: t.url } });
  const result = JSON.parse(stdout);
  expect(result).toMatchObject({ link: ['payment_link', 'open'], refused: [true, 'not_found'], event: 'ping' });
  expect(result.from).toMatch(/\/node_modules\/@payment-service\/client\/dist\/index\.js$/);
});

it('type-checks a TypeScript consumer against the shipped declarations, and refuses wrong calls', async () => {
  await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [], strict: true, noEmit: true, skipLibCheck: false },
    include: ['consumer.ts'],
  }));
  await writeFile(path.join(project, 'consumer.ts'), `
import { PaymentService, verifyWebhook, type PaymentLink, type WebhookEvent } from '@payment-service/client';

export async function journey(ps: PaymentService): Promise<string> {
  const link: PaymentLink = await ps.createPaymentLink({ amount: '1.00', currency: 'USD', description: 'Tea' });
  // @ts-expect-error amounts are decimal strings
  await ps.createPaymentLink({ amount: 1, currency: 'USD', description: 'Tea' });
  // @ts-expect-error only checkout-session creation takes an Idempotency-Key
  await ps.createPaymentLink({ amount: '1.00', currency: 'USD', description: 'Tea' }, { idempotencyKey: 'k' });
  const session = await ps.createCheckoutSession({ amount: '1.00', currency: 'USD' }, { idempotencyKey: 'order-1' });
  session.order_id satisfies string;
  for await (const order of ps.paginate('list_orders', { limit: 10 })) order.payment_ids satisfies string[];
  // @ts-expect-error retrieve_order is not a list
  ps.paginate('retrieve_order');
  const event: WebhookEvent = await verifyWebhook('{}', null, 'whsec_x');
  if (event.type === 'payment.paid') event.data.payment.amount satisfies string;
  return link.url;
}
`);
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const checked = await run(tsc, ['-p', project], { cwd: project, env }).then(() => 'ok', (error: { stdout: string }) => error.stdout);
  expect(checked).toBe('ok');
});
