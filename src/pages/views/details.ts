import type { VNode } from 'preact';
import { COUNTRY_CODES } from '../../resources/shared/addresses.ts';
import { html, Select, TextField } from '../../ui/index.ts';
import type { PayerView } from '../../resources/payer/view.ts';
import type { Messages, RefusedInput } from '../messages/en.ts';
import { LISTED_REGION_COUNTRIES, regionCode, regionsOf } from './regions.ts';

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
    required: options.required ?? false, maxLength: options.maxLength ?? 200, autocomplete: options.autocomplete, errorLabel: props.t.errorLabel,
    ...(options.hint ? { hint: options.hint } : {}),
    ...(props.errors[name] ? { error: props.errors[name] } : {}),
  });
}

const countryLists = new Map<string, Array<{ value: string; label: string }>>();

/** Every country, by its name in the buyer's language, in that language's order; made once per language. */
function countryOptions(t: Messages): Array<{ value: string; label: string }> {
  let list = countryLists.get(t.lang);
  if (list === undefined) {
    const names = new Intl.DisplayNames([t.lang], { type: 'region' });
    const order = new Intl.Collator(t.lang);
    list = [{ value: '', label: t.chooseCountry }, ...COUNTRY_CODES.map((code) => ({ value: code, label: names.of(code) ?? code })).sort((a, b) => order.compare(a.label, b.label))];
    countryLists.set(t.lang, list);
  }
  return list;
}

/**
 * The region: a list for the US, Canada and Australia, a text field elsewhere. All are in the page
 * and the one for the country chosen is enabled (disabled ones are not sent); payer.js switches as
 * the country changes. Without script the text field also takes a listed region's name or code.
 */
function Region(props: DetailsProps & { kind: string; autocomplete: string }): VNode {
  const { t, kind, values, errors } = props;
  const name = `${kind}.region`;
  const country = values[`${kind}.country`]?.trim().toUpperCase() ?? '';
  const listed = LISTED_REGION_COUNTRIES.includes(country) ? country : null;
  const error = errors[name];
  return html`<div class="region" data-region-of=${kind}>
    <div data-region-country="" hidden=${listed !== null}>
      ${TextField({ name, id: `field-${kind}-region`, errorLabel: t.errorLabel, label: t.region, hint: t.regionHint, value: listed ? undefined : values[name], maxLength: 100,
        autocomplete: props.autocomplete, disabled: listed !== null, ...(error && !listed ? { error } : {}) })}
    </div>
    ${LISTED_REGION_COUNTRIES.map((code) => html`<div data-region-country=${code} hidden=${listed !== code}>
      ${Select({ name, id: `field-${kind}-region-${code}`, errorLabel: t.errorLabel, label: t.regionLabels[code] ?? t.region, required: true, disabled: listed !== code, autocomplete: props.autocomplete,
        value: listed === code ? values[name]?.trim().toUpperCase() : undefined, ...(error && listed === code ? { error } : {}),
        options: [{ value: '', label: t.chooseRegion }, ...regionsOf(code).map((region) => ({ value: region.code, label: region.name }))] })}
    </div>`)}
  </div>`;
}

function Address(props: DetailsProps & { kind: 'shipping_address' | 'billing_address'; legend: string }): VNode {
  const { t, kind, legend, errors, values } = props;
  const section = kind === 'shipping_address' ? 'shipping' : 'billing';
  const countryField = `${kind}.country`;
  return html`<fieldset class="address">
    <legend>${legend}</legend>
    ${errors[kind] && html`<p class="error-message" id=${`${kind}-error`}>${errors[kind]}</p>`}
    ${Select({ name: countryField, id: `field-${kind}-country`, errorLabel: t.errorLabel, label: t.country, required: true, autocomplete: `${section} country`,
      value: values[countryField]?.trim().toUpperCase(), options: countryOptions(t), ...(errors[countryField] ? { error: errors[countryField] } : {}) })}
    ${field(props, `${kind}.line1`, t.line1, { required: true, autocomplete: `${section} address-line1` })}
    ${field(props, `${kind}.line2`, t.line2, { autocomplete: `${section} address-line2` })}
    ${field(props, `${kind}.city`, t.city, { required: true, autocomplete: `${section} address-level2` })}
    ${Region({ ...props, kind, autocomplete: `${section} address-level1` })}
    ${field(props, `${kind}.postal_code`, t.postalCode, { autocomplete: `${section} postal-code`, maxLength: 20 })}
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
    if (parts.region !== undefined && parts.country !== undefined) parts.region = regionCode(parts.country.toUpperCase(), parts.region);
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

/** A refusal of the form as its catalogue words it: with the country and what was typed in the field it names. */
export function refusalOf(error: RefusedInput, form: FormValues): RefusedInput {
  const [kind = '', part] = (error.field ?? '').split('.');
  const country = part === undefined ? undefined : form[`${kind}.country`]?.trim().toUpperCase();
  return { code: error.code, message: error.message, field: error.field, country, value: error.field === undefined ? undefined : form[error.field]?.trim() };
}
