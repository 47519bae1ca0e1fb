import { sql } from 'kysely';
import { z } from 'zod';
import { DAY } from '../../core/clock.ts';
import { coded } from '../../core/validation.ts';
import type { Db } from '../../db/database.ts';
import type { Principal } from '../../auth/principal.ts';
import { defineAction } from '../../verbs/action.ts';
import { unitsToDecimal } from './record.ts';

// The books as a CSV for an accountant (issue 30): one line per arrival (a deposit) with what
// forwarded it (net to the payout wallet, fee, gas), and one per sweep the operator ran (its
// disposition `sweep`: its amount under net when it went to the payout wallet, under fee when to
// the fee wallet, with the gas it took), so the net column adds up to what the payout wallet
// received and the fee column to the fee wallet's. Read in keyset batches and written as it
// goes: memory stays flat whatever the range holds.

/** Rows read per statement: large enough that a statement's cost is spread, small enough to stay flat. */
const BATCH = 2_000;
/** The longest range one export covers. */
const MAX_RANGE_DAYS = 366;

const day = (what: string) => z.string(coded('invalid_filter', `${what} must be a date, YYYY-MM-DD.`))
  .regex(/^\d{4}-\d{2}-\d{2}$/, coded('invalid_filter', `${what} must be a date, YYYY-MM-DD.`))
  .transform((text) => new Date(`${text}T00:00:00Z`))
  .refine((date) => !Number.isNaN(date.getTime()), coded('invalid_filter', `${what} is not a day of the calendar.`));

/** `from` and `to` are days (UTC), both included. */
export const BooksRange = z.object({ from: day('From'), to: day('To') })
  .refine((range) => range.to.getTime() >= range.from.getTime(), { message: 'invalid_filter :: to must be on or after from.', path: ['to'] })
  .refine((range) => range.to.getTime() - range.from.getTime() <= MAX_RANGE_DAYS * DAY, { message: `invalid_filter :: a range covers at most ${MAX_RANGE_DAYS} days.`, path: ['to'] });
export type BooksRange = z.output<typeof BooksRange>;

export const BOOKS_COLUMNS = ['time', 'payment_id', 'order_id', 'network', 'coin', 'disposition', 'needs_review', 'amount', 'net', 'fee',
  'gas_top_up', 'deposit_txid', 'deposit_log_index', 'net_txids', 'fee_txids', 'from', 'deposit_address'] as const;

interface BooksLine {
  id: string;
  kind: 'deposit' | 'sweep';
  recorded_at: Date;
  payment_id: string;
  order_id: string | null;
  network: string;
  coin: string;
  disposition: string;
  needs_review: boolean;
  value: string;
  decimals: number;
  tx_hash: string;
  log_index: number | null;
  from_address: string;
  to_address: string;
  net: string | null;
  fee: string | null;
  gas: string | null;
  net_txids: string | null;
  fee_txids: string | null;
}

/** A CSV field: quoted when it holds a comma, quote or line break; a leading =, +, - or @ neutralised for spreadsheets. */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(row: BooksLine): string {
  const amount = (units: string | null) => (units === null ? '' : unitsToDecimal(BigInt(units), row.decimals));
  return [
    row.recorded_at.toISOString(), row.payment_id, row.order_id ?? '', row.network, row.coin, row.disposition, String(row.needs_review),
    amount(row.value), amount(row.net), amount(row.fee), row.gas === null ? '' : unitsToDecimal(BigInt(row.gas), 18),
    ...(row.kind === 'sweep' ? ['', ''] : [row.tx_hash, row.log_index === null ? '' : String(row.log_index)]),
    row.net_txids ?? '', row.fee_txids ?? '', row.from_address, row.kind === 'sweep' ? row.from_address : row.to_address,
  ].map(field).join(',');
}

/** One batch of arrivals and sweeps after `after`, with the shares and top-ups that moved each on. */
async function batch(db: Db, principal: Principal, range: BooksRange, after: { at: Date; id: string } | null): Promise<BooksLine[]> {
  const end = new Date(range.to.getTime() + DAY);
  const { rows } = await sql<BooksLine>`
    SELECT d.id, d.kind, d.recorded_at, d.payment_id, p.order_id, d.network, d.coin, coalesce(d.disposition, d.kind) AS disposition, d.needs_review,
           d.value::text AS value, d.decimals, d.tx_hash, d.log_index, d.from_address, d.to_address, f.gas,
           CASE WHEN d.kind = 'deposit' THEN f.net WHEN w.to_payout THEN d.value::text END AS net,
           CASE WHEN d.kind = 'deposit' THEN f.fee WHEN NOT w.to_payout THEN d.value::text END AS fee,
           CASE WHEN d.kind = 'deposit' THEN f.net_txids WHEN w.to_payout THEN d.tx_hash END AS net_txids,
           CASE WHEN d.kind = 'deposit' THEN f.fee_txids WHEN NOT w.to_payout THEN d.tx_hash END AS fee_txids
    FROM chain_movements d
    JOIN payments p ON p.id = d.payment_id
    -- A sweep went to the payout wallet or to the fee wallet (the only other place a sweep goes).
    CROSS JOIN LATERAL (SELECT d.to_address = lower(p.payout_wallet) IS TRUE AS to_payout) w
    LEFT JOIN LATERAL (
      SELECT sum(s.value) FILTER (WHERE s.kind = 'forward_net')::text AS net,
             sum(s.value) FILTER (WHERE s.kind = 'forward_fee')::text AS fee,
             sum(s.value) FILTER (WHERE s.kind = 'gas_top_up')::text AS gas,
             string_agg(s.tx_hash, ' ' ORDER BY s.id) FILTER (WHERE s.kind = 'forward_net') AS net_txids,
             string_agg(s.tx_hash, ' ' ORDER BY s.id) FILTER (WHERE s.kind = 'forward_fee') AS fee_txids
      FROM chain_movements s
      WHERE s.payment_id = d.payment_id AND s.kind <> 'deposit' AND s.deposit_tx_hash = d.tx_hash
        AND s.deposit_log_index IS NOT DISTINCT FROM d.log_index
    ) f ON true
    WHERE d.business_id = ${principal.businessId} AND d.livemode = ${principal.livemode} AND d.kind IN ('deposit', 'sweep')
      AND d.recorded_at >= ${range.from} AND d.recorded_at < ${end}
      ${after === null ? sql`` : sql`AND (d.recorded_at, d.id) > (${after.at}, ${after.id})`}
    ORDER BY d.recorded_at, d.id
    LIMIT ${BATCH}`.execute(db);
  return rows;
}

/** The CSV, a header then one line per arrival or sweep in the range, oldest first, each ending in CRLF (RFC 4180). */
export async function* booksCsv(db: Db, principal: Principal, range: BooksRange): AsyncGenerator<string> {
  yield `${BOOKS_COLUMNS.join(',')}\r\n`;
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    const rows = await batch(db, principal, range, after);
    if (rows.length > 0) yield `${rows.map(csvLine).join('\r\n')}\r\n`;
    if (rows.length < BATCH) return;
    const last = rows.at(-1)!;
    after = { at: last.recorded_at, id: last.id };
  }
}

/** The dashboard's and the CLI's export: read access to payments in the caller's business and mode. */
export const exportBooks = defineAction({
  name: 'export_books',
  title: 'Export the books of on-chain money as CSV',
  role: 'viewer',
  modeScoped: true,
  effect: 'reads',
  input: BooksRange,
  async run(ctx, input): Promise<AsyncGenerator<string>> {
    return booksCsv(ctx.db, ctx.principal, input);
  },
});
