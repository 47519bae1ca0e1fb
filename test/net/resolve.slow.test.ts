import { expect, it } from 'vitest';
import { resolveHost } from '../../src/net/resolve.ts';

// The resolver's time limit is on real time (its own timer and the DNS client's), not the
// injected clock, so this measures real time passing: no name resolves on this network, which
// is the case it must end quickly.

it('gives up on a name that does not resolve, within its time limit', async () => {
  const started = performance.now();
  await expect(resolveHost('no-such-name.invalid')).rejects.toBeTruthy();
  expect(performance.now() - started).toBeLessThan(3_000);
});
