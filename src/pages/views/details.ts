import type { VNode } from 'preact';
import { html, TextField } from '../../ui/index.ts';
import type { PayerView } from '../../resources/payer/view.ts';
import type { Messages } from '../messages/en.ts';

// The buyer's details: email always, and what the merchant's `collect` asks for. Field names are
// the API's, with addresses as `shipping_address.city` and so on, so an API error's `field`
// points at the input it is about.

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

export interface DetailsProps {
  t: Messages;
  collect: Record<string, boolean> | null;
  values: FormValues;
  errors: FieldErrors;
}

const ADDRESS_PARTS = ['line1', 'line2', 'city', 'region', 'postal_code', 'country'] as const;

function field(props: DetailsProps, name: string, label: string, options: { type?: 'email' | 'tel' | 'text'; hint?: string; required?: boolean; autocomplete?: string; maxLength?: number } = {}): VNode {
  return TextField({
    name, label, id: `field-${name.replace('.', '-')}`, type: options.type ?? 'text', value: props.values[name],
    required: options.required ?? false, maxLength: options.maxLength ?? 200, autocomplete: options.autocomplete,
    ...(options.hint ? { hint: options.hint } : {}),
    ...(props.errors[name] ? { error: props.errors[name] } : {}),
  });
}

function Address(props: DetailsProps & { kind: 'shipping_address' | 'billing_address'; legend: string }): VNode {
  const { t, kind, legend, errors } = props;
  const section = kind === 'shipping_address' ? 'shipping' : 'billing';
  const labels: Record<(typeof ADDRESS_PARTS)[number], string> = { line1: t.line1, line2: t.line2, city: t.city, region: t.region, postal_code: t.postalCode, country: t.country };
  const autocomplete: Record<(typeof ADDRESS_PARTS)[number], string> = {
    line1: 'address-line1', line2: 'address-line2', city: 'address-level2', region: 'address-level1', postal_code: 'postal-code', country: 'country',
  };
  return html`<fieldset>
    <legend>${legend}</legend>
    ${errors[kind] && html`<p class="error-message" id=${`${kind}-error`}>${errors[kind]}</p>`}
    ${ADDRESS_PARTS.map((part) => field(props, `${kind}.${part}`, labels[part], {
      required: part === 'line1' || part === 'city' || part === 'country',
      autocomplete: `${section} ${autocomplete[part]}`,
      ...(part === 'region' ? { hint: t.regionHint } : part === 'country' ? { hint: t.countryHint, maxLength: 2 } : {}),
    }))}
  </fieldset>`;
}

export function DetailsFields(props: DetailsProps): VNode {
  const { t, collect } = props;
  return html`<div>
    ${field(props, 'email', t.email, { type: 'email', required: true, autocomplete: 'email', hint: t.emailHint, maxLength: 254 })}
    ${collect?.name && field(props, 'name', t.name, { required: true, autocomplete: 'name' })}
    ${collect?.phone && field(props, 'phone', t.phone, { type: 'tel', required: true, autocomplete: 'tel', maxLength: 40 })}
    ${collect?.shipping_address && Address({ ...props, kind: 'shipping_address', legend: t.shippingAddress })}
    ${collect?.billing_address && Address({ ...props, kind: 'billing_address', legend: t.billingAddress })}
  </div>`;
}

/**
 * The form as the payment holds it: the email, and once started what the buyer gave (name, phone,
 * the order's addresses), so going back to change one detail keeps the others.
 */
export function detailsOf(view: Pick<PayerView, 'customerEmail' | 'customerName' | 'given' | 'order'>): FormValues {
  const values: FormValues = {};
  const put = (name: string, value: string | null | undefined) => {
    if (value) values[name] = value;
  };
  put('email', view.customerEmail);
  put('name', view.given.name ?? view.customerName);
  put('phone', view.given.phone);
  for (const [kind, address] of [['shipping_address', view.order?.shipTo], ['billing_address', view.order?.billTo]] as const) {
    for (const part of ADDRESS_PARTS) put(`${kind}.${part}`, address?.[part]);
  }
  return values;
}

/** What the buyer typed, as the start verb takes it: empty fields are absent; addresses are objects. */
export function detailsFrom(form: FormValues, collect: Record<string, boolean> | null): Record<string, unknown> {
  const text = (name: string) => {
    const value = form[name]?.trim();
    return value ? value : undefined;
  };
  const address = (kind: string) => {
    const parts = Object.fromEntries(ADDRESS_PARTS.map((part) => [part, text(`${kind}.${part}`)]).filter(([, value]) => value !== undefined));
    return Object.keys(parts).length === 0 ? undefined : parts;
  };
  return {
    email: text('email'),
    ...(collect?.name ? { name: text('name') } : {}),
    ...(collect?.phone ? { phone: text('phone') } : {}),
    ...(collect?.shipping_address ? { shipping_address: address('shipping_address') } : {}),
    ...(collect?.billing_address ? { billing_address: address('billing_address') } : {}),
  };
}
