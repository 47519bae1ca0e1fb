import type { VNode } from 'preact';
import type { Page } from '../../core/pagination.ts';
import type { PaymentLinkOut } from '../../resources/payment-links/schemas.ts';
import { PAYMENT_STATUSES } from '../../resources/shared/payment-status.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { Button, CheckboxGroup, Form, html, Money, Notice, ShareAddress, Table, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, MODE_NAMES, unixTime as at, type BusinessFrame } from './frame.ts';
import { DateFilters, emptyList, FilterForm, type Filters, Pager, StatusFilter } from './list.ts';
import { Facts } from './payment.ts';
import { PaymentBadge } from '../wording.ts';
import { RefusalNotice, type FormRefusal } from '../refusals.ts';

export const LINK_FILTERS = ['status', 'reference', 'from', 'to'] as const;

/** The fields of the create form, as typed (given back with the errors when the API refuses them). */
export const LINK_FIELDS = ['amount', 'currency', 'description', 'customer_name', 'customer_email', 'customer_phone', 'reference', 'memo', 'expires_in_days', 'success_url'] as const;
export const COLLECT_BOXES = [
  { name: 'collect_name', label: 'Their full name' },
  { name: 'collect_phone', label: 'A phone number' },
  { name: 'collect_shipping_address', label: 'A shipping address' },
  { name: 'collect_billing_address', label: 'A billing address' },
] as const;
/** The form's fields few links need, folded. */
const OPTIONAL_FIELDS = ['customer_name', 'customer_email', 'customer_phone', 'reference', 'memo', 'expires_in_days', 'success_url'] as const;
export type LinkForm = Partial<Record<(typeof LINK_FIELDS)[number] | (typeof COLLECT_BOXES)[number]['name'], string>>;

const manages = (role: BusinessFrame['role']) => role !== undefined && atLeast(role, 'developer');

export function paymentLinksPage({ session, business, mode, role, links, filters, later, refused }: BusinessFrame & { links: Page<PaymentLinkOut>; filters: Filters; later: boolean; refused?: string | undefined }): VNode {
  const path = businessPath(business.id, 'payment_links', mode);
  const rows = links.data.map((link) => [
    at(link.created),
    html`<a href=${objectPath(business.id, 'payment_links', mode, link.id)}>${link.description}</a>`,
    Money({ amount: link.amount, currency: link.currency }),
    PaymentBadge({ status: link.status, canceled: link.canceled_at !== null }),
    link.customer_email ?? link.customer_name ?? '–',
    at(link.expires_at),
  ]);
  return DashboardPage({
    title: 'Payment links',
    session,
    frame: { business, mode, role },
    area: 'payment_links',
    children: html`<div>
      <h1>Payment links</h1>
      ${manages(role) && html`<p><a class="button primary" href=${`${path}/new`}>Create a payment link</a></p>`}
      ${FilterForm({ path, label: 'Filter payment links', filters, refused, children: [
        StatusFilter({ statuses: PAYMENT_STATUSES, value: filters.status ?? '' }),
        TextField({ name: 'reference', label: 'Reference', value: filters.reference ?? '', maxLength: 64 }),
        ...DateFilters({ filters }),
      ] })}
      ${Table({ label: 'Payment links', columns: ['Created', 'Description', 'Amount', 'Status', 'For', 'Expires'], rows, empty: emptyList(filters, 'payment links') })}
      ${Pager({ path, filters, nextCursor: links.next_cursor, later })}
    </div>`,
  });
}

/** The create form, with what was typed and why it was refused, beside its field or above the form. */
export function paymentLinkNewPage({ session, business, mode, role, values = {}, error }: BusinessFrame & { values?: LinkForm; error?: Omit<FormRefusal, 'status'> }): VNode {
  const path = businessPath(business.id, 'payment_links', mode);
  const errorFor = (field: string) => (error?.field === field ? error.message : undefined);
  const unplaced = error && !(LINK_FIELDS as readonly string[]).includes(error.field ?? '') && error.field !== 'collect';
  const text = (name: (typeof LINK_FIELDS)[number], label: string, more: { hint?: string; maxLength?: number; type?: 'text' | 'email' | 'url' | 'number' | 'tel'; required?: boolean } = {}) =>
    TextField({ name, label, value: values[name] ?? '', error: errorFor(name), ...more });
  return DashboardPage({
    title: 'New payment link',
    session,
    frame: { business, mode, role },
    area: 'payment_links',
    children: html`<div>
      <p><a href=${path}>All payment links</a></p>
      <h1>New ${MODE_NAMES[mode]} payment link</h1>
      ${error && RefusalNotice({ refusal: error, ...(unplaced ? {} : { placed: 'The link was not created: see the field marked below.' }) })}
      ${Form({ action: path, label: 'New payment link', children: [
        text('amount', 'Amount', { hint: 'As a decimal number, such as 25.00.', maxLength: 20, required: true }),
        text('currency', 'Currency', { hint: 'Three letters, such as USD or EUR.', maxLength: 3, required: true }),
        text('description', 'What it is for', { hint: 'Shown to the payer; up to 120 characters.', maxLength: 120, required: true }),
        CheckboxGroup({ id: 'field-collect', legend: 'Also ask the payer for', error: errorFor('collect'), boxes: COLLECT_BOXES.map((box) => ({ ...box, checked: values[box.name] === 'on' })) }),
        // Rarely needed: folded unless something is in them (the form given back) or was refused there.
        html`<details class="form-section" open=${OPTIONAL_FIELDS.some((name) => (values[name] ?? '') !== '' || errorFor(name) !== undefined)}>
          <summary>More: who it is for, your reference, a note, how long it is open, the page after paying</summary>
          ${text('customer_name', 'Who it is for (optional)', { maxLength: 80 })}
          ${text('customer_email', 'Their email (optional)', { hint: 'Filled in on their page.', type: 'email', maxLength: 254 })}
          ${text('customer_phone', 'Their phone (optional)', { type: 'tel', maxLength: 40 })}
          ${text('reference', 'Your reference (optional)', { hint: 'Your own id for it; up to 64 characters.', maxLength: 64 })}
          ${text('memo', 'A note to the payer (optional)', { maxLength: 500 })}
          ${text('expires_in_days', 'Days it takes payments', { hint: '1 to 30; 7 when left empty.', type: 'number', maxLength: 2 })}
          ${text('success_url', 'Where the payer goes after paying (optional)', { hint: mode === 'live' ? 'An https:// address.' : 'An http:// or https:// address.', type: 'url', maxLength: 2048 })}
        </details>`,
        Button({ variant: 'primary', children: 'Create payment link' }),
      ] })}
    </div>`,
  });
}

/** One link: its facts, its payer and tracking addresses to copy, and cancelling it. */
export function paymentLinkPage({ session, business, mode, role, link, notice }: BusinessFrame & { link: PaymentLinkOut; notice?: 'created' | 'canceled' }): VNode {
  return DashboardPage({
    title: `Payment link ${link.id}`,
    session,
    frame: { business, mode, role },
    area: 'payment_links',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'payment_links', mode)}>All payment links</a></p>
      <h1>${link.description}</h1>
      ${notice === 'created' && Notice({ tone: 'success', children: 'Created. Send the payer address to whoever pays.' })}
      ${notice === 'canceled' && Notice({ tone: 'success', children: 'Canceled: the link takes no payments.' })}
      ${ShareAddress({ name: 'payer_url', label: 'Payer address (send this to whoever pays)', url: link.url, what: 'payer address', openLabel: 'Open the payer page' })}
      ${link.tracking_url !== null && ShareAddress({ name: 'tracking_url', label: 'Tracking address (shows its status, no payer details)', url: link.tracking_url, what: 'tracking address', openLabel: 'Open the tracking page' })}
      ${Facts({ label: 'The payment link', facts: [
        ['Status', PaymentBadge({ status: link.status, canceled: link.canceled_at !== null })],
        ['Amount', Money({ amount: link.amount, currency: link.currency })],
        ['For', [link.customer_name, link.customer_email].filter(Boolean).join(', ') || null],
        ['Reference', link.reference],
        ['Note to the payer', link.memo],
        ['After paying', link.success_url],
        ['Asks for', link.collect === null ? null : Object.keys(link.collect).join(', ').replaceAll('_', ' ')],
        ['Created', at(link.created)],
        ['Expires', at(link.expires_at)],
        ['Started', at(link.started_at)],
        ['Paid', at(link.paid_at)],
        ['Canceled', at(link.canceled_at)],
        ['Payment', html`<a href=${objectPath(business.id, 'payments', mode, link.id)}>${link.id}</a>`],
      ] })}
      ${manages(role) && link.status === 'open' && link.canceled_at === null && html`<section aria-labelledby="cancel-heading">
        <h2 id="cancel-heading">Cancel the link</h2>
        <p>The payer's page will say it takes no payments. This cannot be undone.</p>
        <p><a class="button danger" href=${objectPath(business.id, 'payment_links', mode, link.id, '/cancel')}>Cancel this link…</a></p>
      </section>`}
    </div>`,
  });
}

/** The confirmation step before a payment link is canceled for good. */
export function paymentLinkCancelPage({ session, business, mode, role, link }: BusinessFrame & { link: PaymentLinkOut }): VNode {
  const path = objectPath(business.id, 'payment_links', mode, link.id);
  return DashboardPage({
    title: `Cancel the link ${link.description}`,
    session,
    frame: { business, mode, role },
    area: 'payment_links',
    children: html`<div>
      <h1>Cancel this payment link?</h1>
      ${Facts({ label: 'The link', facts: [
        ['Description', link.description],
        ['Amount', Money({ amount: link.amount, currency: link.currency })],
        ['For', link.customer_email ?? link.customer_name],
      ] })}
      <p>Its payer page will say it takes no payments, and a buyer who has it open cannot pay. This cannot be undone: to take this payment later, create a new link.</p>
      ${Form({ action: `${path}/cancel`, label: 'Cancel the link', children: [
        Button({ variant: 'danger', children: 'Cancel the link for good' }),
        html`<a href=${path}>Keep the link</a>`,
      ] })}
    </div>`,
  });
}
