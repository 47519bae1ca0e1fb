import type { VNode } from 'preact';
import type { Page } from '../../core/pagination.ts';
import type { CheckoutOut } from '../../resources/checkouts/schemas.ts';
import { PROVIDERS } from '../../resources/providers/catalogue.ts';
import { atLeast } from '../../tenancy/roles.ts';
import { Button, CheckboxGroup, CopyField, Form, html, Money, Notice, RadioGroup, Select, ShareAddress, Table, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { DashboardPage, MODE_NAMES, unixTime as at, type BusinessFrame } from './frame.ts';
import { emptyList, FilterForm, type Filters, Pager } from './list.ts';
import { Facts } from './payment.ts';
import { COLLECT_BOXES } from './payment-links.ts';
import { CHECKOUT_KIND_NAMES, ObjectBadge } from '../wording.ts';
import { RefusalNotice, type RefusalFix } from '../refusals.ts';

// Checkouts (spec 2.2): the list by kind, a new checkout page, changing one (its slug stays),
// deleting one for good, and the buy-button snippet to copy for each.

export const CHECKOUT_FIELDS = ['name', 'description', 'amount', 'currency', 'success_url', 'theme', 'button_label', 'crypto', 'routing_choice', 'routing_provider', 'routing_fallback'] as const;
export type CheckoutForm = Partial<Record<(typeof CHECKOUT_FIELDS)[number] | (typeof COLLECT_BOXES)[number]['name'], string>>;
export type FieldError = { field: string | undefined; message: string; fix?: RefusalFix };

const CARD_PROVIDERS = PROVIDERS.filter((provider) => provider.card);
const manages = (role: BusinessFrame['role']) => role !== undefined && atLeast(role, 'developer');

/** A checkout's values as its form shows them. */
export function formOf(checkout: CheckoutOut): CheckoutForm {
  const values: CheckoutForm = {
    name: checkout.name, description: checkout.description ?? '', amount: checkout.amount, currency: checkout.currency, success_url: checkout.success_url ?? '',
    theme: checkout.theme, button_label: checkout.button_label ?? '', crypto: checkout.crypto ? 'on' : '',
    routing_choice: checkout.routing.choice, routing_provider: checkout.routing.provider ?? '', routing_fallback: checkout.routing.fallback ? 'on' : '',
  };
  for (const box of COLLECT_BOXES) if (checkout.collect?.[box.name.replace(/^collect_/, '')]) values[box.name] = 'on';
  return values;
}

/** Text as HTML text or a quoted attribute value. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * The buy button's lines for a merchant's site (spec 4.2), exactly what to paste. Inside the
 * element a plain link to the checkout: what shows without JavaScript (embed.js replaces it with
 * the button, whose label then comes from the checkout). Its text is ours, never a typed name, so
 * the snippet holds nothing a merchant typed (the merchant may change the words when pasting).
 */
export function snippetOf(checkout: CheckoutOut): string {
  const origin = new URL(checkout.url).origin;
  return `<script src="${origin}/embed.js" defer></script>\n<buy-button checkout="${escapeHtml(checkout.slug)}"><a href="${escapeHtml(checkout.url)}">Buy</a></buy-button>`;
}

export function checkoutsPage({ session, business, mode, role, checkouts, filters, later, refused }: BusinessFrame & { checkouts: Page<CheckoutOut>; filters: Filters; later: boolean; refused?: string | undefined }): VNode {
  const path = businessPath(business.id, 'checkouts', mode);
  // The list of pricing tables is the navigation's own entry.
  const heading = filters.kind === 'pricing_table' ? 'Pricing tables' : 'Checkouts';
  const rows = checkouts.data.map((checkout) => [
    html`<a href=${objectPath(business.id, 'checkouts', mode, checkout.id)}>${checkout.name}</a>`,
    CHECKOUT_KIND_NAMES[checkout.kind],
    Money({ amount: checkout.amount, currency: checkout.currency }),
    html`<code>${checkout.slug}</code>`,
    at(checkout.created),
  ]);
  return DashboardPage({
    title: heading,
    session,
    frame: { business, mode, role },
    area: 'checkouts',
    place: filters.kind === 'pricing_table' ? '?kind=pricing_table' : undefined,
    children: html`<div>
      <h1>${heading}</h1>
      ${manages(role) && html`<p>
        <a class="button primary" href=${`${path}/new`}>Create a checkout page</a>
        ${' '}<a class="button" href=${`${path}/new-pricing-table`}>Create a pricing table</a>
        ${' '}<a class="button" href=${`${path}/new-widget`}>Create a widget</a>
      </p>`}
      ${FilterForm({ path, label: 'Filter checkouts', filters, refused, children: [
        Select({ name: 'kind', label: 'Kind', value: filters.kind ?? '', options: [{ value: '', label: 'Any' }, ...Object.entries(CHECKOUT_KIND_NAMES).map(([value, label]) => ({ value, label }))] }),
      ] })}
      ${Table({ label: 'Checkouts', columns: ['Name', 'Kind', 'Price', 'Slug', 'Created'], rows, empty: emptyList(filters, 'checkouts') })}
      ${Pager({ path, filters, nextCursor: checkouts.next_cursor, later })}
    </div>`,
  });
}

/** The form of a new checkout page, or of a checkout being changed, with the API's refusal beside its field. */
/** Where a refused field's message goes: a routing error beside the routing choice, any other beside its field. */
export function errorPlacer(error: FieldError | undefined): (field: string) => string | undefined {
  const routingField = error?.field?.startsWith('routing') ? 'routing' : error?.field;
  return (field: string) => (routingField === field ? error!.message : undefined);
}

type TextOptions = { hint?: string; maxLength?: number; type?: 'text' | 'url'; required?: boolean };

const SETTINGS_FIELDS = ['button_label', 'success_url', 'theme', 'crypto', 'routing', 'collect'];

/**
 * The settings every kind of checkout has besides its name and price: label, landing address,
 * theme, crypto, routing, what it asks. Rarely changed, so folded, unless one of them was refused.
 */
export function checkoutSettingsFields(mode: BusinessFrame['mode'], values: CheckoutForm, errorFor: (field: string) => string | undefined): VNode[] {
  return [html`<details class="form-section" open=${SETTINGS_FIELDS.some((field) => errorFor(field) !== undefined)}>
    <summary>More settings: button, page after paying, theme, ways to pay, buyer details</summary>
    ${settingsFields(mode, values, errorFor)}
  </details>`];
}

function settingsFields(mode: BusinessFrame['mode'], values: CheckoutForm, errorFor: (field: string) => string | undefined): VNode[] {
  const text = (name: (typeof CHECKOUT_FIELDS)[number], label: string, more: TextOptions = {}) => TextField({ name, label, value: values[name] ?? '', error: errorFor(name), ...more });
  return [
    text('button_label', 'Button label (optional)', { hint: 'Up to 32 characters; the price when empty.', maxLength: 32 }),
    text('success_url', 'Where buyers go after paying (optional)', { hint: mode === 'live' ? 'An https:// address.' : 'An http:// or https:// address.', type: 'url', maxLength: 2048 }),
    RadioGroup({ name: 'theme', legend: 'Theme', value: values.theme || 'light', error: errorFor('theme'), choices: [{ value: 'light', label: 'Light' }, { value: 'dark', label: 'Dark' }] }),
    CheckboxGroup({ id: 'field-crypto', legend: 'Stablecoin', error: errorFor('crypto'), boxes: [{ name: 'crypto', label: 'Buyers may pay from their own wallet (when the account allows it)', checked: values.crypto === 'on' }] }),
    RadioGroup({ name: 'routing_choice', legend: 'Card providers', value: values.routing_choice || 'smart', error: errorFor('routing'), choices: [
      { value: 'smart', label: 'Smart: the best for each buyer' },
      { value: 'buyer', label: 'The buyer chooses' },
      { value: 'fixed', label: 'Always the provider below' },
    ] }),
    Select({ name: 'routing_provider', label: 'Provider (for "always")', value: values.routing_provider ?? '', options: [{ value: '', label: 'None' }, ...CARD_PROVIDERS.map((provider) => ({ value: provider.id, label: provider.name }))] }),
    CheckboxGroup({ id: 'field-fallback', legend: 'When that provider cannot take a buyer', boxes: [{ name: 'routing_fallback', label: 'Use smart routing instead', checked: values.routing_fallback === 'on' }] }),
    CheckboxGroup({ id: 'field-collect', legend: 'Also ask the buyer for', error: errorFor('collect'), boxes: COLLECT_BOXES.map((box) => ({ ...box, checked: values[box.name] === 'on' })) }),
  ];
}

/**
 * The top of a checkout's form: the way back, its title, the refusal (beside its field when the
 * form has one, said here otherwise) and, when changing one, that its address stays.
 */
export function CheckoutFormHeading({ business, mode, checkout, title, back, error, placed }: Omit<BusinessFrame, 'session'> & {
  checkout?: CheckoutOut | undefined; title: string; back: string; error?: FieldError | undefined; placed: ReadonlySet<string | undefined>;
}): VNode {
  const field = error?.field?.startsWith('routing') ? 'routing' : error?.field;
  return html`<div>
    <p><a href=${checkout ? objectPath(business.id, 'checkouts', mode, checkout.id) : businessPath(business.id, 'checkouts', mode)}>${checkout ? back : 'All checkouts'}</a></p>
    <h1>${title}</h1>
    ${error && RefusalNotice({ refusal: error, ...(placed.has(field) ? { placed: 'Nothing was saved: see the field marked below.' } : {}) })}
    ${checkout && html`<p class="muted">Its address and buy button stay the same: <code>${checkout.slug}</code>.</p>`}
  </div>`;
}

/** The form of a new checkout page or widget (`kind`), or of one being changed, with the API's refusal beside its field. */
export function checkoutFormPage({ session, business, mode, role, checkout, kind = 'page', values, error }: BusinessFrame & { checkout?: CheckoutOut; kind?: 'page' | 'widget'; values: CheckoutForm; error?: FieldError }): VNode {
  const path = businessPath(business.id, 'checkouts', mode);
  const action = checkout ? objectPath(business.id, 'checkouts', mode, checkout.id, '/edit') : kind === 'widget' ? `${path}/widgets` : path;
  const errorFor = errorPlacer(error);
  const placed = new Set<string | undefined>([...CHECKOUT_FIELDS, 'collect', 'routing']);
  const text = (name: (typeof CHECKOUT_FIELDS)[number], label: string, more: TextOptions = {}) => TextField({ name, label, value: values[name] ?? '', error: errorFor(name), ...more });
  const title = checkout ? `Change ${checkout.name}` : `New ${MODE_NAMES[mode]} ${kind === 'widget' ? 'widget' : 'checkout page'}`;
  return DashboardPage({
    title,
    session,
    frame: { business, mode, role },
    area: 'checkouts',
    children: html`<div>
      ${CheckoutFormHeading({ business, mode, checkout, title, back: 'Back to the checkout', error, placed })}
      ${!checkout && kind === 'widget' && html`<p class="muted">A widget is a checkout made for its buy button: put the button on your site, and buyers open its page from there.</p>`}
      ${Form({ action, label: title, children: [
        text('name', 'Name', { hint: 'Shown to buyers; up to 80 characters.', maxLength: 80, required: true }),
        text('description', 'Description (optional)', { hint: 'Shown under the name; up to 280 characters.', maxLength: 280 }),
        text('amount', 'Price', { hint: 'As a decimal number, such as 18.50.', maxLength: 20, required: true }),
        text('currency', 'Currency', { hint: 'USD, EUR, GBP, CAD or AUD.', maxLength: 3, required: true }),
        ...checkoutSettingsFields(mode, values, errorFor),
        Button({ variant: 'primary', children: checkout ? 'Save changes' : kind === 'widget' ? 'Create widget' : 'Create checkout page' }),
      ] })}
    </div>`,
  });
}

export type CheckoutNotice = 'created' | 'saved';

/** One checkout: its address and buy button to copy, its settings, and deleting it. */
export function checkoutPage({ session, business, mode, role, checkout, notice }: BusinessFrame & { checkout: CheckoutOut; notice?: CheckoutNotice }): VNode {
  const path = objectPath(business.id, 'checkouts', mode, checkout.id);
  return DashboardPage({
    title: `Checkout ${checkout.name}`,
    session,
    frame: { business, mode, role },
    area: 'checkouts',
    children: html`<div>
      <p><a href=${businessPath(business.id, 'checkouts', mode)}>All checkouts</a></p>
      <h1>${checkout.name}</h1>
      ${notice === 'created' && Notice({ tone: 'success', children: 'Created. Share its address, or put its buy button on your site.' })}
      ${notice === 'saved' && Notice({ tone: 'success', children: 'Saved. Its address and buy button are unchanged.' })}
      ${!checkout.active && Notice({ tone: 'warning', children: 'Deleted: it takes no new buyers.' })}
      ${ShareAddress({ name: 'checkout_url', label: 'Address (send it to buyers, or link to it)', url: checkout.url, what: 'checkout address', openLabel: 'Open the checkout page' })}
      ${checkout.active && html`<section aria-labelledby="snippet-heading">
        <h2 id="snippet-heading">Buy button</h2>
        ${CopyField({ name: 'snippet', label: 'Put these lines on any page of your site', value: snippetOf(checkout), rows: 3, copyLabel: 'Copy the buy button',
          hint: 'Without JavaScript the link inside shows instead of the button.' })}
      </section>`}
      ${Facts({ label: 'The checkout', facts: [
        ['Status', ObjectBadge({ status: checkout.active ? 'active' : 'deleted' })],
        ['Kind', CHECKOUT_KIND_NAMES[checkout.kind]],
        [checkout.kind === 'pricing_table' ? 'Lowest plan price' : 'Price', Money({ amount: checkout.amount, currency: checkout.currency })],
        ['Options', checkout.options?.join(' / ') ?? null],
        ['Description', checkout.description],
        ['Button label', checkout.button_label ?? 'the price'],
        ['Theme', checkout.theme === 'dark' ? 'Dark' : 'Light'],
        ['Stablecoin', checkout.crypto ? 'allowed' : 'not offered'],
        ['Card providers', checkout.routing.choice === 'fixed'
          ? `always ${CARD_PROVIDERS.find((provider) => provider.id === checkout.routing.provider)?.name ?? checkout.routing.provider}${checkout.routing.fallback ? ', else smart' : ''}`
          : checkout.routing.choice === 'buyer' ? 'the buyer chooses' : 'smart: the best for each buyer'],
        ['Asks for', checkout.collect === null ? null : Object.keys(checkout.collect).join(', ').replaceAll('_', ' ')],
        ['After paying', checkout.success_url],
        ['Created', at(checkout.created)],
        ['Changed', at(checkout.updated)],
      ] })}
      ${checkout.kind === 'pricing_table' && PlansTable({ checkout })}
      ${manages(role) && checkout.active && html`<p>
        <a class="button" href=${`${path}/${checkout.kind === 'pricing_table' ? 'edit-pricing-table' : 'edit'}`}>Change</a>
        ${' '}<a class="button danger" href=${`${path}/delete`}>Delete</a>
      </p>`}
    </div>`,
  });
}

/** A pricing table's plans: each price (per option), features, and which one is recommended. */
function PlansTable({ checkout }: { checkout: CheckoutOut }): VNode {
  const rows = checkout.plans.map((plan) => [
    plan.recommended ? html`${plan.name} <strong>(recommended)</strong>` : plan.name,
    html`${plan.prices.map((price, index) => html`${index > 0 && ', '}${checkout.options?.[index] ? `${checkout.options[index]}: ` : ''}${Money({ amount: price.amount, currency: checkout.currency })} / ${price.unit}`)}`,
    plan.description ?? '',
    plan.features.join('; '),
  ]);
  return html`<section aria-labelledby="plans-heading">
    <h2 id="plans-heading">Plans</h2>
    ${Table({ label: 'Plans', columns: ['Plan', 'Prices', 'Description', 'Features'], rows, empty: 'No plans.' })}
  </section>`;
}

/** The confirmation before a checkout is deleted for good. */
export function checkoutDeletePage({ session, business, mode, role, checkout }: BusinessFrame & { checkout: CheckoutOut }): VNode {
  const path = objectPath(business.id, 'checkouts', mode, checkout.id);
  return DashboardPage({
    title: `Delete ${checkout.name}`,
    session,
    frame: { business, mode, role },
    area: 'checkouts',
    children: html`<div>
      <h1>Delete ${checkout.name}?</h1>
      <p>Its page and buy button will say it takes no new buyers. Payments already made stay. This cannot be undone.</p>
      ${Form({ action: `${path}/delete`, label: 'Delete the checkout', children: [
        Button({ variant: 'danger', children: 'Delete for good' }),
        html`<a href=${path}>Cancel</a>`,
      ] })}
    </div>`,
  });
}
