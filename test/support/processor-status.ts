import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { TEST_PROCESSOR_SECRET, type TestApp } from './harness.ts';

// What a processor watching the chains tells the service every ~15 s (processor.status), sent as
// the real processor sends it: a signed POST /processor/notices. Live starts offer a network's
// coins only while its latest report is healthy and recent, so a test that starts Live payments
// reports first (and again after moving the clock past PROCESSOR_STATUS_FRESH_SECONDS).

export type NetworkName = 'polygon' | 'base' | 'ethereum';

export interface NetworkStatusFields {
  network: NetworkName;
  chain_id?: number;
  coins?: string[];
  healthy?: boolean;
  head_block?: string | null;
  final_block?: string | null;
  cursor_block?: string | null;
  problem?: string | null;
  /** What the processor says of the network's forwarding (issue 30); absent from an older processor. */
  forwarding?: unknown;
}

const DEFAULTS: Record<NetworkName, { chain_id: number; coins: string[] }> = {
  polygon: { chain_id: 137, coins: ['polygon_usdc', 'polygon_usdt'] },
  base: { chain_id: 8453, coins: ['base_usdc'] },
  ethereum: { chain_id: 1, coins: ['ethereum_usdc'] },
};

/** A processor.status body; each network healthy with its every coin unless told otherwise. */
export function statusNotice(networks: ReadonlyArray<NetworkName | NetworkStatusFields>, sentAt: number): Record<string, unknown> {
  return {
    id: `status-${randomUUID()}`,
    type: 'processor.status',
    sent_at: sentAt,
    networks: networks.map((given) => {
      const fields = typeof given === 'string' ? { network: given } : given;
      return {
        ...DEFAULTS[fields.network], healthy: true, head_block: '123456', final_block: '123400', cursor_block: '123401', problem: null, ...fields,
      };
    }),
  };
}

/** POSTs `body` signed with the test processor secret at the app's clock (or `timestamp`). */
export async function postSignedNotice(t: Pick<TestApp, 'url' | 'clock'>, body: unknown, timestamp = Math.floor(t.clock.now().getTime() / 1000)): Promise<{ status: number; body: any }> {
  const raw = JSON.stringify(body);
  const signature = `t=${timestamp},v1=${createHmac('sha256', TEST_PROCESSOR_SECRET).update(`${timestamp}.${raw}`).digest('hex')}`;
  const response = await fetch(`${t.url}/processor/notices`, { method: 'POST', headers: { 'content-type': 'application/json', 'processor-signature': signature }, body: raw });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Reports the networks as a healthy processor would, now (default: Polygon, Base and Ethereum,
 * every coin): what a test needs before it starts a Live payment.
 */
export async function reportProcessorStatus(t: Pick<TestApp, 'url' | 'clock'>, options: { networks?: ReadonlyArray<NetworkName | NetworkStatusFields> } = {}): Promise<void> {
  const sentAt = Math.floor(t.clock.now().getTime() / 1000);
  const answer = await postSignedNotice(t, statusNotice(options.networks ?? ['polygon', 'base', 'ethereum'], sentAt));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}
