import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { PaymentService, signWebhook, verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../client/src/index.ts';
import { rollWebhookSecret } from '../../src/resources/webhook-endpoints/roll-secret.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { asOperatorOn } from '../support/operator.ts';
import { signaturesOf, startReceiver, type Received, type Receiver } from '../support/receiver.ts';

// Real deliveries checked with the client's verifyWebhook: a receiver on loopback that answers
// 200 to what verifies with the secret it knows and 400 (so the service retries) to anything
// else, as a merchant's would; then the same deliveries altered, late, or under a rolled secret.

let t: TestApp;
let receiver: Receiver;
let ps: PaymentService;
/** The secret the receiver checks each path with, as the merchant stored it. */
const secrets = new Map<string, string>();
const verified: Array<{ path: string; event: WebhookEvent }> = [];

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' }, { workers: true });
  receiver = await startReceiver();
  receiver.respond((request, response) => void answerVerified(request, response));
  ps = new PaymentService({ apiKey: (await (await t.business()).key()).secret, baseUrl: t.url });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function answerVerified(request: Received, response: ServerResponse) {
  try {
    const event = await verifyWebhook(request.body, request.headers['service-signature'], secrets.get(request.path) ?? '', { now: t.clock.now() });
    verified.push({ path: request.path, event });
    response.writeHead(200).end();
  } catch (error) {
    response.writeHead(400).end((error as WebhookVerificationError).reason);
  }
}

/** An endpoint on the receiver at `path`, its secret stored for the receiver. */
async function endpointAt(path: string) {
  const endpoint = await ps.createWebhookEndpoint({ url: `${receiver.url}${path}` });
  secrets.set(path, endpoint.secret);
  return endpoint;
}

/** A Test payment started (payment.started), optionally paid (payment.paid). */
async function payment(outcome?: 'paid') {
  const session = await ps.createCheckoutSession({ amount: '12.00', currency: 'USD', customer_email: 'buyer@example.com' });
  await ps.startCheckoutSession({ id: session.id });
  if (outcome) await ps.simulatePayment({ id: session.id, outcome });
  return session.id;
}

const eventsAt = (path: string) => verified.filter((entry) => entry.path === path).map((entry) => entry.event);
const requestsAt = (path: string) => receiver.received.filter((request) => request.path === path);
const reasonOf = (promise: Promise<unknown>) => promise.then(() => 'verified', (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : String(error)));

it('verifies real deliveries and returns their typed events', async () => {
  await endpointAt('/shop');
  const paymentId = await payment('paid');
  await vi.waitFor(() => expect(eventsAt('/shop').map((event) => event.type)).toEqual(['payment.started', 'payment.paid']), { timeout: 5_000 });
  const paid = eventsAt('/shop')[1]!;
  if (paid.type === 'ping') throw new Error('expected a payment event');
  expect(paid.id).toMatch(/^evt_/);
  expect(paid.livemode).toBe(false);
  expect(paid.data.payment).toMatchObject({ id: paymentId, status: 'paid', amount: '12.00', currency: 'USD', mode: 'test' });
  expect(paid.data.order).toMatchObject({ status: 'paid', currency: 'USD' });
  expect(paid.data.customer).toMatchObject({ email: 'buyer@example.com' });
  // Every request was answered 200: nothing the service signed was refused.
  expect(requestsAt('/shop')).toHaveLength(2);

  // signWebhook makes the service's header byte for byte.
  const [request] = requestsAt('/shop');
  const header = request!.headers['service-signature'] as string;
  expect(await signWebhook(request!.body, secrets.get('/shop')!, Number(/^t=(\d+)/.exec(header)![1]))).toBe(header);
});

it('refuses a delivery altered on the way, signed with another secret, too old, or without a proper header', async () => {
  const path = '/refusals';
  await endpointAt(path);
  await payment();
  await vi.waitFor(() => expect(eventsAt(path)).toHaveLength(1), { timeout: 5_000 });
  const { body, headers } = requestsAt(path)[0]!;
  const header = headers['service-signature'] as string;
  const secret = secrets.get(path)!;
  const signedAt = Number(/^t=(\d+)/.exec(header)![1]) * 1000;
  const at = (seconds: number) => ({ now: new Date(signedAt + seconds * 1000) });

  expect(await reasonOf(verifyWebhook(body.replace('"12.00"', '"1200.00"'), header, secret, at(0)))).toBe('signature_mismatch');
  expect(await reasonOf(verifyWebhook(body, header.replace(/^t=\d+/, `t=${signedAt / 1000 + 1}`), secret, at(0)))).toBe('signature_mismatch');
  expect(await reasonOf(verifyWebhook(body, header, 'whsec_someoneelsessecret000000000000', at(0)))).toBe('signature_mismatch');
  // The tolerance is 300 seconds either way; a genuine delivery past it is refused as late.
  expect(await reasonOf(verifyWebhook(body, header, secret, at(300)))).toBe('verified');
  expect(await reasonOf(verifyWebhook(body, header, secret, at(-300)))).toBe('verified');
  expect(await reasonOf(verifyWebhook(body, header, secret, at(301)))).toBe('timestamp_outside_tolerance');
  expect(await reasonOf(verifyWebhook(body, header, secret, at(-301)))).toBe('timestamp_outside_tolerance');
  expect(await reasonOf(verifyWebhook(body, header, secret, { ...at(3_600), toleranceSeconds: 3_600 }))).toBe('verified');

  expect(await reasonOf(verifyWebhook(body, undefined, secret, at(0)))).toBe('missing_signature');
  // The raw body as bytes, as frameworks hand it over, verifies as the text does.
  expect(await reasonOf(verifyWebhook(Buffer.from(body), header, secret, at(0)))).toBe('verified');
  expect(await reasonOf(verifyWebhook(new TextEncoder().encode(body).buffer, header, secret, at(0)))).toBe('verified');

  expect(await reasonOf(verifyWebhook(body, '', secret, at(0)))).toBe('missing_signature');
  // Node gives a header sent twice as a list: one value is the header, two are not of the form.
  expect(await reasonOf(verifyWebhook(body, [header], secret, at(0)))).toBe('verified');
  expect(await reasonOf(verifyWebhook(body, [header, header], secret, at(0)))).toBe('malformed_signature');
  for (const malformed of [header.toUpperCase(), header.replace(/^t=\d+,/, ''), `${header},v2=abc`, header.replace(/,v1=/, ', v1='), header.slice(0, -1), `t=now,${header.split(',')[1]}`]) {
    expect(await reasonOf(verifyWebhook(body, malformed, secret, at(0))), malformed).toBe('malformed_signature');
  }
  // Signed but not an event: refused after the signature passed.
  const notJson = 'not json';
  expect(await reasonOf(verifyWebhook(notJson, await signWebhook(notJson, secret, signedAt / 1000), secret, at(0)))).toBe('invalid_payload');
});

it('verifies with either secret while a rolled secret still signs, and only the new one after a roll at once', async () => {
  const path = '/rolled';
  const endpoint = await endpointAt(path);
  const operator = await asOperatorOn(t.context, 'webhook_endpoint', endpoint.id);
  const kept = await rollWebhookSecret.run(operator, { id: endpoint.id, keep_previous: true });
  expect((await ps.retrieveWebhookEndpoint({ id: endpoint.id })).previous_secret_expires_at).toEqual(expect.any(Number));

  // The receiver still knows only the old secret: the delivery verifies through its second v1.
  await payment();
  await vi.waitFor(() => expect(eventsAt(path)).toHaveLength(1), { timeout: 5_000 });
  const overlap = requestsAt(path)[0]!;
  const header = overlap.headers['service-signature'] as string;
  expect(signaturesOf(header)).toHaveLength(2);
  const now = { now: t.clock.now() };
  expect(await reasonOf(verifyWebhook(overlap.body, header, endpoint.secret, now))).toBe('verified');
  expect(await reasonOf(verifyWebhook(overlap.body, header, kept.secret, now))).toBe('verified');

  // Rolled again at once: only the newest secret signs, and the receiver with an old one refuses with 400.
  const rolled = await rollWebhookSecret.run(operator, { id: endpoint.id, keep_previous: false });
  await payment();
  await vi.waitFor(() => expect(requestsAt(path)).toHaveLength(2), { timeout: 5_000 });
  const after = requestsAt(path)[1]!;
  const single = after.headers['service-signature'] as string;
  expect(signaturesOf(single)).toHaveLength(1);
  expect(await reasonOf(verifyWebhook(after.body, single, rolled.secret, now))).toBe('verified');
  expect(await reasonOf(verifyWebhook(after.body, single, kept.secret, now))).toBe('signature_mismatch');
  expect(await reasonOf(verifyWebhook(after.body, single, endpoint.secret, now))).toBe('signature_mismatch');
  expect(eventsAt(path)).toHaveLength(1);
});
