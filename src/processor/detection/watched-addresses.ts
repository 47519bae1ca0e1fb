import pg from 'pg';
import { sql } from 'kysely';
import { z } from 'zod';
import { DAY, type Clock } from '../../core/clock.ts';
import type { Db } from '../../db/database.ts';
import type { DepositAddresses } from '../../core/deposit-addresses.ts';

// The Live deposit addresses the processor watches, held in memory so a scan matches each
// transfer's recipient locally: 100,000 addresses cost the RPC calls 10 do. Each is watched from
// its payment's start until WATCH_AFTER_EXPIRY_MS after the payment expires, so a late payment
// is still found (spec 3: money that arrives late is held, not lost). New addresses arrive by
// NOTIFY deposit_addresses as their start commits (migrations/0024); at (re)connection the
// watch list is caught up once from the payments table, never polled.

export const WATCH_AFTER_EXPIRY_MS = 7 * DAY;

const Announced = z.object({
  address: z.string().regex(/^0x[0-9a-f]{40}$/),
  payment_id: z.string().min(1),
  started_at: z.coerce.date(),
  expires_at: z.coerce.date(),
  // Additive since migration 0027: what the start fixed, so forwarding never reads payments.
  deposit_index: z.number().int().min(0).nullish(),
  payout_wallet: z.string().regex(/^0x[0-9a-f]{40}$/).nullish(),
  fee_bps: z.number().int().min(0).max(10_000).nullish(),
});

export class WatchedAddresses {
  /** Lowercase address → when its watch ends (ms since the epoch). */
  readonly #until = new Map<string, number>();

  has(address: string): boolean {
    return this.#until.has(address.toLowerCase());
  }

  get size(): number {
    return this.#until.size;
  }

  /** The earliest watch end held (or later): until then, forgetting has nothing to do. */
  #earliestEnd = Infinity;

  add(address: string, until: Date): void {
    const key = address.toLowerCase();
    const end = Math.max(until.getTime(), this.#until.get(key) ?? 0);
    this.#until.set(key, end);
    this.#earliestEnd = Math.min(this.#earliestEnd, end);
  }

  /** Forgets addresses whose watch ended before `time`: the time of the blocks being scanned, not the wall clock, so a scan that lags still matches them. */
  forgetEndedBefore(time: Date): void {
    if (time.getTime() <= this.#earliestEnd) return;
    let earliest = Infinity;
    for (const [address, until] of this.#until) {
      if (until < time.getTime()) this.#until.delete(address);
      else earliest = Math.min(earliest, until);
    }
    this.#earliestEnd = earliest;
  }
}

interface WatchedRow {
  address: string;
  payment_id: string;
  watch_from: Date;
  watch_until: Date;
  deposit_index: number | null;
  payout_wallet: string | null;
  fee_bps: number | null;
}

async function remember(db: Db, rows: WatchedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('processor.watched_addresses').values(rows)
    .onConflict((oc) => oc.column('address').doNothing()).execute();
}

/**
 * Records every Live deposit address whose watch has not ended, then loads the watch list into
 * `watched`. Run after LISTEN is in place, so nothing assigned in between is missed.
 */
export async function catchUpWatchedAddresses(db: Db, clock: Clock, watched: WatchedAddresses): Promise<void> {
  const now = clock.now();
  const after = sql.lit(`${WATCH_AFTER_EXPIRY_MS} milliseconds`);
  await sql`INSERT INTO processor.watched_addresses (address, payment_id, watch_from, watch_until, deposit_index, payout_wallet, fee_bps)
    SELECT lower(deposit_address), id, coalesce(started_at, created_at), expires_at + ${after}::interval,
      deposit_index, lower(payout_wallet), fee_bps
    FROM payments
    WHERE livemode AND deposit_address IS NOT NULL AND expires_at + ${after}::interval > ${now}
    ON CONFLICT (address) DO NOTHING`.execute(db);
  const rows = await db.selectFrom('processor.watched_addresses').select(['address', 'watch_until'])
    .where('watch_until', '>', now).execute();
  for (const row of rows) watched.add(row.address, row.watch_until);
}

export interface AddressListener {
  /** Resolves once listening and caught up (the first time). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens for new deposit addresses on a dedicated connection; after each (re)connection it
 * catches up, since announcements made while not listening are not replayed.
 */
export function listenForDepositAddresses(databaseUrl: string, db: Db, clock: Clock, watched: WatchedAddresses, options: {
  retryMs?: number;
  log?: (line: string) => void;
} = {}): AddressListener {
  const { retryMs = 1_000, log = (line: string) => console.error(line) } = options;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let becameReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => { becameReady = resolve; });

  const announced = (payload: string | undefined) => {
    const parsed = Announced.safeParse(JSON.parse(payload ?? 'null'));
    if (!parsed.success) return log(`[processor] ignored a deposit address announcement: ${payload}`);
    const { address, payment_id, started_at, expires_at, deposit_index, payout_wallet, fee_bps } = parsed.data;
    const until = new Date(expires_at.getTime() + WATCH_AFTER_EXPIRY_MS);
    watched.add(address, until);
    remember(db, [{
      address, payment_id, watch_from: started_at, watch_until: until,
      deposit_index: deposit_index ?? null, payout_wallet: payout_wallet ?? null, fee_bps: fee_bps ?? null,
    }])
      .catch((error: unknown) => log(`[processor] could not record watched address ${address}: ${String(error)}`));
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: 'payment-service-processor-addresses' });
    const lost = () => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), retryMs);
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (message) => {
      try {
        announced(message.payload);
      } catch (error) {
        log(`[processor] ignored a deposit address announcement: ${String(error)}`);
      }
    });
    client = next;
    try {
      await next.connect();
      await next.query('LISTEN deposit_addresses');
      if (closed) return void next.end().catch(() => undefined);
      await catchUpWatchedAddresses(db, clock, watched);
      becameReady();
    } catch (error) {
      log(`[processor] listening for deposit addresses failed, retrying: ${String(error)}`);
      lost();
    }
  };
  void connect();

  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}

/**
 * Payments started before migration 0027 did not keep their deposit address's child index, which
 * forwarding needs to derive the key. Derives the addresses of every index drawn so far (the
 * sequence's last value) once, and fills in those it finds. Answers how many were found; an
 * address not found is not of this xpub, and stays without one (the status shows it).
 */
export async function findMissingDepositIndexes(db: Db, deposits: DepositAddresses): Promise<number> {
  const missing = await db.selectFrom('processor.watched_addresses').select('address').where('deposit_index', 'is', null).execute();
  if (missing.length === 0) return 0;
  const wanted = new Set(missing.map((row) => row.address));
  const drawn = await sql<{ last: string | null }>`SELECT CASE WHEN is_called THEN last_value END AS last FROM deposit_address_index`.execute(db);
  const last = drawn.rows[0]?.last === null || drawn.rows[0] === undefined ? -1 : Number(drawn.rows[0].last);
  let found = 0;
  for (let index = 0; index <= last && wanted.size > 0; index++) {
    const address = deposits.address(index).toLowerCase();
    if (!wanted.delete(address)) continue;
    await db.updateTable('processor.watched_addresses').set({ deposit_index: index }).where('address', '=', address).execute();
    found += 1;
  }
  return found;
}
