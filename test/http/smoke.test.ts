import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.ts';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.close(); });

describe('smoke', () => {
  it('creates and reads a payment link', async () => {
    const biz = await t.business();
    const key = await biz.key();
    const created = await t.request('POST', '/v1/payment_links', { key: key.secret, body: { amount: '10.00', currency: 'usd', description: 'Tea' } });
    expect(created.status).toBe(201);
    const read = await t.request('GET', `/v1/payment_links/${created.body.id}`, { key: key.secret });
    expect(read.body).toEqual(created.body);
  });
});
