import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import pg from 'pg';
import { z } from 'zod';
import { addSameWorkRoutes } from './same-work.ts';

// The yardstick: the least a Fastify + pg server does for the same work, one query per request
// on a pool of the same size against the same database. No auth, no validation, no transaction.
// For MCP, the least the official SDK does: its stateless handler, a server with the one tool per
// request (the SDK's design), JSON responses, the same query. For the write rows, a second
// yardstick on the same server and pool: the same rows as ours (bench/same-work.ts).

export interface Baseline {
  url: string;
  close(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function startBaseline(options: { databaseUrl: string; poolSize: number; businessId: string; baseUrl: string }): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize, application_name: 'bench-baseline' });
  pool.on('error', () => undefined);
  const app = Fastify({ logger: false });

  app.get<{ Params: { id: string } }>('/baseline/payment_links/:id', async (request, reply) => {
    const { rows } = await pool.query('SELECT * FROM payments WHERE id = $1', [request.params.id]);
    if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
    return rows[0];
  });

  app.post<{ Body: { amount?: unknown; currency?: unknown; description?: unknown } }>('/baseline/payment_links', async (request, reply) => {
    const { amount, currency, description } = request.body ?? {};
    if (typeof amount !== 'string' || typeof currency !== 'string' || typeof description !== 'string') {
      return reply.code(400).send({ error: 'amount, currency and description are required strings' });
    }
    const now = new Date();
    const { rows } = await pool.query(
      `INSERT INTO payments (id, business_id, livemode, source, order_id, amount_minor, currency, description, created_at, expires_at)
       VALUES ($1, $2, false, 'payment_link', NULL, $3, $4, $5, $6, $7)
       RETURNING *`,
      [`pay_${randomBytes(12).toString('hex')}`, options.businessId, Math.round(Number(amount) * 100), currency, description,
        now, new Date(now.getTime() + 7 * DAY_MS)],
    );
    return reply.code(201).send(rows[0]);
  });

  const mcp = createMcpHandler(() => {
    const server = new McpServer({ name: 'bench-baseline', version: '1.0.0' });
    server.registerTool('retrieve_payment_link', { description: 'One payment link by id.', inputSchema: z.object({ id: z.string() }) }, async ({ id }) => {
      const { rows } = await pool.query('SELECT * FROM payments WHERE id = $1', [id]);
      const row = rows[0] as Record<string, unknown> | undefined;
      return { content: [{ type: 'text', text: JSON.stringify(row ?? null) }], ...(row ? { structuredContent: row } : {}) };
    });
    return server;
  }, { responseMode: 'json', onerror: () => undefined });
  app.post('/baseline/mcp', async (request, reply) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await mcp.fetch(new Request(`http://127.0.0.1${request.url}`, { method: 'POST', headers }), { parsedBody: request.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      if (name !== 'content-length') reply.header(name, value);
    });
    return reply.send(await response.text());
  });

  try {
    await addSameWorkRoutes(app, pool, options);
    await app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}
