import { afterAll, beforeAll, expect, it } from 'vitest';
import { isPaymentServiceError, PaymentService, PaymentServiceError } from '../../client/src/index.ts';
import { freePort, startTestApp, type TestApp } from '../support/harness.ts';

// A merchant's whole journey through the typed client against the running service: links
// created and paged through, a checkout session created with an Idempotency-Key and replayed,
// started, paid by a Test simulation, its order read; refusals arrive as PaymentServiceErrors.

let t: TestApp;
let ps: PaymentService;
/** Every request the client sent, as `METHOD /path?query`. */
const sent: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMITS: 'off' });
  const key = (await (await t.business()).key()).secret;
  ps = new PaymentService({
    apiKey: key,
    baseUrl: `${t.url}/`,
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input);
      sent.push(`${init?.method} ${url.pathname}${url.search}`);
      return fetch(input, init);
    },
  });
});
afterAll(async () => t?.close());

it('creates payment links and pages through them newest first', async () => {
  const created = [];
  for (const description of ['Tea', 'Coffee', 'Cocoa']) {
    created.push(await ps.createPaymentLink({ amount: '10.00', currency: 'USD', description, reference: 'journey' }));
    t.clock.advance(1_000);
  }
  expect(created[0]).toMatchObject({ object: 'payment_link', status: 'open', amount: '10.00', description: 'Tea' });

  sent.length = 0;
  const paged = [];
  for await (const link of ps.paginate('list_payment_links', { limit: 2, reference: 'journey' })) paged.push(link.description);
  expect(paged).toEqual(['Cocoa', 'Coffee', 'Tea']);
  expect(sent).toEqual([
    'GET /v1/payment_links?limit=2&reference=journey',
    `GET /v1/payment_links?limit=2&starting_after=${created[1]!.id}&reference=journey`,
  ]);

  // Leaving the loop early fetches no further page.
  sent.length = 0;
  for await (const link of ps.paginate('list_payment_links', { limit: 1 })) {
    expect(link.id).toBe(created[2]!.id);
    break;
  }
  expect(sent).toHaveLength(1);
});

it('creates a checkout session with an Idempotency-Key, replays it, and refuses the key with another body', async () => {
  const body = { amount: '24.00', currency: 'USD', description: 'Beans, 1 kg', customer_email: 'buyer@example.com' };
  const first = await ps.request('create_checkout_session', body, { idempotencyKey: 'order-1001-attempt-1' });
  expect(first.status).toBe(201);
  expect(first.requestId).toEqual(expect.any(String));
  const replay = await ps.request('create_checkout_session', body, { idempotencyKey: 'order-1001-attempt-1' });
  expect(replay.status).toBe(200);
  expect(replay.data.id).toBe(first.data.id);
  const conflict = await ps.createCheckoutSession({ ...body, amount: '25.00' }, { idempotencyKey: 'order-1001-attempt-1' }).catch((error: unknown) => error);
  expect(conflict).toBeInstanceOf(PaymentServiceError);
  expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict' });
  // Without a key, the same body makes a new session.
  expect((await ps.createCheckoutSession(body)).id).not.toBe(first.data.id);
});

it('starts a session, pays it by simulation and reads the paid order', async () => {
  const session = await ps.createCheckoutSession({ amount: '18.50', currency: 'EUR', reference: 'journey-order' });
  const started = await ps.startCheckoutSession({ id: session.id, email: 'Buyer@Example.com', name: 'Ada Buyer' });
  expect(started).toMatchObject({ id: session.id, status: 'open', customer_email: 'buyer@example.com' });

  const paid = await ps.simulatePayment({ id: session.id, outcome: 'paid' });
  expect(paid).toMatchObject({ id: session.id, object: 'payment', status: 'paid', amount: '18.50', currency: 'EUR' });
  expect((await ps.retrievePayment({ id: session.id })).status).toBe('paid');

  const order = await ps.retrieveOrder({ id: session.order_id });
  expect(order).toMatchObject({ id: session.order_id, status: 'paid' });
  expect(order.payment_ids).toContain(session.id);
  const customer = await ps.retrieveCustomer({ id: paid.customer_id! });
  expect(customer).toMatchObject({ email: 'buyer@example.com', paid_orders_count: 1 });
});

it('turns refusals into PaymentServiceErrors with status, code, field and request id', async () => {
  const invalid = await ps.createPaymentLink({ amount: '0.50', currency: 'USD', description: 'Too cheap' }).catch((error: unknown) => error);
  expect(isPaymentServiceError(invalid, 'invalid_amount')).toBe(true);
  expect(invalid).toMatchObject({ name: 'PaymentServiceError', status: 400, code: 'invalid_amount', field: 'amount', requestId: expect.any(String) });
  expect((invalid as Error).message).toContain('amount');

  // A value of the wrong type, as an untyped caller might send it, is the service's refusal too.
  const wrongType = await ps.createPaymentLink({ amount: '5.00', currency: 'USD', description: 'Tea', expires_in_days: '7' as unknown as number }).catch((error: unknown) => error);
  expect(wrongType).toMatchObject({ status: 400, code: 'invalid_expiry', field: 'expires_in_days' });

  await expect(ps.retrievePaymentLink({ id: 'pay_doesnotexist' })).rejects.toMatchObject({ status: 404, code: 'not_found' });

  const revoked = new PaymentService({ apiKey: 'sk_test_00000000000000000000000000000000', baseUrl: t.url });
  await expect(revoked.getCredential()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
});

it('asks a credential function before every request, and says when no answer came', async () => {
  const key = (await (await t.business()).key()).secret;
  let asked = 0;
  const renewing = new PaymentService({ apiKey: async () => { asked += 1; return key; }, baseUrl: t.url });
  await renewing.getCredential();
  await renewing.listPaymentLinks();
  expect(asked).toBe(2);

  const nobody = new PaymentService({ apiKey: key, baseUrl: `http://127.0.0.1:${await freePort()}` });
  await expect(nobody.listPaymentLinks()).rejects.toMatchObject({ status: 0, code: 'network_error' });

  const controller = new AbortController();
  controller.abort();
  await expect(renewing.listPaymentLinks({}, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
});
