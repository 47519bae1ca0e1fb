import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbedded } from '../../src/db/embedded.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { installJobs } from '../../src/jobs/boss.ts';

export const TEMPLATE = 'template_app';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection URL of the run's cluster, ending in the database name to replace. */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'payment-service-test-'));
  const cluster = await startEmbedded({
    dataDir,
    port: await freePort(),
    database: 'postgres',
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '400' },
  });
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  await admin.end();
  const template = openDatabase(cluster.url.replace(/\/postgres$/, `/${TEMPLATE}`), 1);
  await migrate(template.db);
  await template.close();
  // pg-boss's schema too, so no test file installs it again.
  await installJobs(cluster.url.replace(/\/postgres$/, `/${TEMPLATE}`));
  project.provide('pgUrl', cluster.url);
  return async () => {
    await cluster.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
