import type { VNode } from 'preact';
import type { Page } from '../../core/pagination.ts';
import type { PaymentOut } from '../../resources/payments/schemas.ts';
import { PAYMENT_STATUSES } from '../../resources/shared/payment-status.ts';
import { html, Money, Table, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, unixTime as at, type BusinessFrame } from './frame.ts';
import { DateFilters, emptyList, FilterForm, type Filters, Pager, StatusFilter } from './list.ts';
import { PaymentBadge } from '../wording.ts';

export const PAYMENT_FILTERS = ['status', 'reference', 'customer_id', 'from', 'to'] as const;

/** A payment's status as a badge (its old name here, for the pages that import it so). */
export { PaymentBadge as PaymentStatus } from '../wording.ts';

/** The business's payments in one mode, newest first, filtered by status, reference, customer and date. */
export function paymentsPage({ session, business, mode, role, payments, filters, later, refused }: BusinessFrame & { payments: Page<PaymentOut>; filters: Filters; later: boolean; refused?: string | undefined }): VNode {
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
    </div>`,
  });
}
