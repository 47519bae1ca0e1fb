import { createServer, type AddressInfo } from 'node:net';
import { operatorPrincipal } from '../src/auth/operator.ts';
import { systemClock } from '../src/core/clock.ts';
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded.ts';
import { createApiKey } from '../src/resources/api-keys/create.ts';
import { updateBusinessSettings } from '../src/resources/businesses/update-settings.ts';
import { createBusiness } from '../src/tenancy/businesses.ts';
import type { AppContext } from '../src/verbs/context.ts';

// What the bench's runs share: a PostgreSQL of their own with durability off (the runs measure
// the work, not the disk) and a business with a payout wallet and a Test key.

export const BENCH_WALLET = '0x1111111111111111111111111111111111111111';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** An embedded PostgreSQL in `dataDir` on a free port, durability off, with `settings` on top. */
export async function startBenchCluster(dataDir: string, settings: Record<string, string> = {}, log?: (line: string) => void): Promise<EmbeddedDatabase> {
  return startEmbedded({ dataDir, port: await freePort(), settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', ...settings }, ...(log ? { log } : {}) });
}

/** A business with a payout wallet and a Test key, made as the operator's CLI makes them. */
export async function benchShop(context: AppContext, name: string, ownerEmail: string): Promise<{ id: string; secret: string }> {
  const created = await createBusiness(context.db, systemClock, { name, ownerEmail });
  const operator = { ...context, principal: await operatorPrincipal(context.db, created.id, false) };
  await updateBusinessSettings.run(operator, { payout_wallet: BENCH_WALLET });
  return { id: created.id, secret: (await createApiKey.run(operator, { name: 'bench' })).secret };
}
