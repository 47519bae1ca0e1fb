import type { VNode } from 'preact';
import type { Page } from '../../core/pagination.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import { PAYMENT_STATUSES } from '../../resources/shared/payment-status.ts';
import { Button, html, Money, Notice, SearchForm, Table, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import { DateFilters, emptyList, FilterForm, type Filters, Pager, StatusFilter } from './list.ts';
import { PaymentBadge } from '../wording.ts';

export const PAYMENT_FILTERS = ['status', 'reference', 'customer_id', 'from', 'to'] as const;

/** A payment's status as a badge (its old name here, for the pages that import it so). */
export { PaymentBadge as PaymentStatus } from '../wording.ts';

/** The business's payments in one mode, newest first, filtered by status, reference, customer and date. */
/** The books export's days as typed (`books_from`, `books_to`): this month so far when none. */
export function booksRangeOf(query: unknown, now: Date): { from: string; to: string } {
  const given = (query ?? {}) as Record<string, unknown>;
  const today = now.toISOString().slice(0, 10);
  const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value.slice(0, 20) : fallback);
  return { from: text(given.books_from, `${today.slice(0, 8)}01`), to: text(given.books_to, today) };
}

/** The books of on-chain money for a date range, as CSV: what an accountant reconciles the payout wallet with. */
function BooksExport({ path, books, refused }: { path: string; books: { from: string; to: string }; refused: string | undefined }): VNode {
  return html`<section aria-labelledby="books-export-heading">
    <h2 id="books-export-heading">Books of on-chain money</h2>
    <p>One line per arrival with what was forwarded to your payout wallet, the fee and the transactions: the net column adds up to what your payout wallet received.</p>
    ${refused !== undefined && Notice({ tone: 'error', children: `The books were not exported: ${refused}` })}
    ${SearchForm({ action: `${path}/books.csv`, label: 'Export the books', children: [
      TextField({ name: 'books_from', label: 'From', hint: 'A day such as 2026-03-01 (UTC).', value: books.from, maxLength: 10 }),
      TextField({ name: 'books_to', label: 'To', hint: 'Up to and including this day.', value: books.to, maxLength: 10 }),
      Button({ children: 'Download CSV' }),
    ] })}
  </section>`;
}

export function paymentsPage({ session, business, mode, role, payments, filters, later, refused, books, booksRefused }: BusinessFrame & { payments: Page<PaymentOut>; filters: Filters; later: boolean; refused?: string | undefined; books: { from: string; to: string }; booksRefused?: string | undefined }): VNode {
  const path = businessPath(business.id, 'payments', mode);
  const rows = payments.data.map((payment) => [
    at(payment.created),
    html`<a href=${objectPath(business.id, 'payments', mode, payment.id)}>${payment.description}</a>`,
    Money({ amount: payment.amount, currency: payment.currency }),
    PaymentBadge({ status: payment.status }),
    payment.customer_email ?? '–',
    payment.reference ?? '–',
  ]);
  return DashboardPage({
    title: 'Payments',
    session,
    frame: { business, mode, role },
    area: 'payments',
    children: html`<div>
      <h1>Payments</h1>
      ${FilterForm({ path, label: 'Filter payments', filters, refused, children: [
        StatusFilter({ statuses: PAYMENT_STATUSES, value: filters.status ?? '' }),
        TextField({ name: 'reference', label: 'Reference', value: filters.reference ?? '', maxLength: 64 }),
        TextField({ name: 'customer_id', label: 'Customer id', value: filters.customer_id ?? '', maxLength: 100 }),
        ...DateFilters({ filters }),
      ] })}
      ${Table({ label: 'Payments', columns: ['Created', 'Description', 'Amount', 'Status', 'Customer', 'Reference'], rows, empty: emptyList(filters, 'payments') })}
      ${Pager({ path, filters, nextCursor: payments.next_cursor, later })}
      ${mode === 'live' && BooksExport({ path, books, refused: booksRefused })}
    </div>`,
  });
}
