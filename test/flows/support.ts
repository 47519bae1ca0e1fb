import { expect } from 'vitest';
import type { TestApp } from '../support/harness.ts';

// Reading what a payment change left behind: its events (in order, as stored bodies) and the
// queued deliveries in pg-boss.

export interface StoredEvent {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  data: { payment: any; order: any; customer: any };
}

export async function eventsOf(t: TestApp, paymentId: string): Promise<StoredEvent[]> {
  const rows = await t.db.selectFrom('events').select(['body']).where('payment_id', '=', paymentId).orderBy('seq').execute();
  return rows.map((row) => JSON.parse(row.body) as StoredEvent);
}

export async function typesOf(t: TestApp, paymentId: string): Promise<string[]> {
  return (await eventsOf(t, paymentId)).map((event) => event.type);
}

/** The first-attempt pg-boss jobs made for the deliveries of an event. */
export async function firstAttemptJobsFor(t: TestApp, eventId: string): Promise<number> {
  const deliveries = await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).execute();
  if (deliveries.length === 0) return 0;
  // Queued or already taken by the worker: every job pg-boss has for the queue.
  const jobs = await t.jobs.boss.findJobs<{ deliveryId: string; attempt: number }>('webhook-delivery');
  return jobs.filter((job) => job.data.attempt === 1 && deliveries.some((d) => d.id === job.data.deliveryId)).length;
}

export async function call(t: TestApp, key: string, method: string, path: string, body?: unknown, expected = [200, 201]) {
  const response = await t.request(method, path, { key, body });
  expect(expected, `${method} ${path}: ${JSON.stringify(response.body)}`).toContain(response.status);
  return response.body;
}
