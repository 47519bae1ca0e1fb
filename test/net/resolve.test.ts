import { expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/net/address-policy.ts';
import { resolveHost } from '../../src/net/resolve.ts';

// The resolver every outbound check uses: localhost names from the hosts file, others from DNS
// with a time limit (no name resolves on this network, which is the case it must end quickly).

it('resolves localhost names to loopback addresses', async () => {
  const answers = await resolveHost('localhost');
  expect(answers.length).toBeGreaterThan(0);
  expect(answers.every(isLoopbackAddress)).toBe(true);
});

it('gives up on a name that does not resolve, within its time limit', async () => {
  const started = Date.now();
  await expect(resolveHost('no-such-name.invalid')).rejects.toBeTruthy();
  expect(Date.now() - started).toBeLessThan(3_000);
});
