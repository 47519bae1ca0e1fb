import { expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/net/address-policy.ts';
import { resolveHost } from '../../src/net/resolve.ts';

// The resolver every outbound check uses: localhost names from the hosts file, others from DNS
// with a time limit (resolve.slow.test.ts: that limit is on real time).

it('resolves localhost names to loopback addresses', async () => {
  const answers = await resolveHost('localhost');
  expect(answers.length).toBeGreaterThan(0);
  expect(answers.every(isLoopbackAddress)).toBe(true);
});
