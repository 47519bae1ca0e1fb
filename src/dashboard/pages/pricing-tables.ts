import type { VNode } from 'preact';
import type { CheckoutOut } from '../../resources/checkouts/schemas.ts';
import { MAX_PLANS } from '../../resources/checkouts/plans.ts';
import { Button, Form, html, RadioGroup, TextField } from '../../ui/index.ts';
import { businessPath, objectPath } from '../paths.ts';
import { CheckoutFormHeading, checkoutSettingsFields, errorPlacer, formOf, type CheckoutForm, type FieldError } from './checkouts.ts';
import { DashboardPage, MODE_NAMES, type BusinessFrame } from './frame.ts';

// A pricing table's form (spec 2.2 plans, options), usable without script: a fixed number of plan
// places (MAX_PLANS), an empty place ignored; the switch's two labels and the unit of each side
// once for the table (every plan's first price has the first unit); features separated by
// semicolons; the recommended plan as one radio group.

export const PLAN_SLOTS = Array.from({ length: MAX_PLANS }, (_, index) => index + 1);
/** Most tables have two or three plans: the first two places are shown, the rest folded. */
const SHOWN_SLOTS = PLAN_SLOTS.slice(0, 2);
const MORE_SLOTS = PLAN_SLOTS.slice(2);
export const PLAN_PARTS = ['name', 'description', 'price_1', 'price_2', 'features'] as const;
export const PRICING_FIELDS = ['option_1', 'option_2', 'unit_1', 'unit_2', 'recommended',
  ...PLAN_SLOTS.flatMap((slot) => PLAN_PARTS.map((part) => `plan_${slot}_${part}`))] as const;
export type PricingForm = CheckoutForm & Partial<Record<string, string>>;

/** A pricing table's values as its form shows them (its plans in their places, in order). */
export function pricingFormOf(checkout: CheckoutOut): PricingForm {
  const values: PricingForm = { ...formOf(checkout), option_1: checkout.options?.[0] ?? '', option_2: checkout.options?.[1] ?? '' };
  const first = checkout.plans[0];
  values.unit_1 = first?.prices[0]?.unit ?? '';
  values.unit_2 = first?.prices[1]?.unit ?? '';
  checkout.plans.forEach((plan, index) => {
    const slot = index + 1;
    Object.assign(values, {
      [`plan_${slot}_name`]: plan.name, [`plan_${slot}_description`]: plan.description ?? '', [`plan_${slot}_features`]: plan.features.join('; '),
      [`plan_${slot}_price_1`]: plan.prices[0]?.amount ?? '', [`plan_${slot}_price_2`]: plan.prices[1]?.amount ?? '',
    });
    if (plan.recommended) values.recommended = String(slot);
  });
  return values;
}

/** A new pricing table's form, or one being changed, with the refusal beside its field. */
export function pricingTableFormPage({ session, business, mode, role, checkout, values, error }: BusinessFrame & { checkout?: CheckoutOut; values: PricingForm; error?: FieldError }): VNode {
  const action = checkout ? objectPath(business.id, 'checkouts', mode, checkout.id, '/edit-pricing-table') : `${businessPath(business.id, 'checkouts', mode)}/pricing-tables`;
  const errorFor = errorPlacer(error);
  const text = (name: string, label: string, more: { hint?: string; maxLength?: number; required?: boolean } = {}) =>
    TextField({ name, label, value: values[name] ?? '', error: errorFor(name), ...more });
  const placed = new Set<string | undefined>(['name', 'description', 'currency', 'plans', 'success_url', 'button_label', 'theme', 'crypto', 'routing', 'collect', ...PRICING_FIELDS]);
  const title = checkout ? `Change ${checkout.name}` : `New ${MODE_NAMES[mode]} pricing table`;
  const planPlace = (slot: number) => html`<fieldset id=${`field-plan_${slot}`}>
    <legend>Plan ${slot}</legend>
    ${text(`plan_${slot}_name`, `Plan ${slot}: name`, { maxLength: 40 })}
    ${text(`plan_${slot}_description`, `Plan ${slot}: description (optional)`, { maxLength: 140 })}
    ${text(`plan_${slot}_price_1`, `Plan ${slot}: price`, { hint: 'For the first option, with a switch.', maxLength: 20 })}
    ${text(`plan_${slot}_price_2`, `Plan ${slot}: price for the second option (with a switch)`, { maxLength: 20 })}
    ${text(`plan_${slot}_features`, `Plan ${slot}: features (optional)`, { hint: 'Such as: 2 bags a month; Free shipping.', maxLength: 900 })}
  </fieldset>`;
  return DashboardPage({
    title,
    session,
    frame: { business, mode, role },
    area: 'checkouts',
    children: html`<div>
      ${CheckoutFormHeading({ business, mode, checkout, title, back: 'Back to the pricing table', error, placed })}
      ${Form({ action, label: title, children: [
        html`<section class="form-section" aria-labelledby="table-heading">
          <h2 id="table-heading">The table</h2>
          ${text('name', 'Name', { hint: 'Shown to buyers above the plans; up to 80 characters.', maxLength: 80, required: true })}
          ${text('description', 'Description (optional)', { hint: 'Up to 280 characters.', maxLength: 280 })}
          ${text('currency', 'Currency', { hint: 'USD, EUR, GBP, CAD or AUD: every plan\'s prices are in it.', maxLength: 3, required: true })}
        </section>`,
        html`<section class="form-section" aria-labelledby="prices-heading">
          <h2 id="prices-heading">Prices</h2>
          <fieldset id="field-options">
            <legend>Switch between two prices (optional)</legend>
            <p class="muted">Two labels such as Monthly and Yearly: each plan then has a price for each. Leave both empty for one price per plan.</p>
            <div class="plan-places">
              ${text('option_1', 'First option', { maxLength: 20 })}
              ${text('option_2', 'Second option', { maxLength: 20 })}
              ${text('unit_1', 'Unit of the first price', { hint: 'What a price is for, such as month or one-time.', maxLength: 20, required: true })}
              ${text('unit_2', 'Unit of the second price (with a switch)', { hint: 'Such as year.', maxLength: 20 })}
            </div>
          </fieldset>
        </section>`,
        html`<section class="form-section" aria-labelledby="plans-heading">
          <h2 id="plans-heading">Plans</h2>
          <div id="field-plans">
            <p class="muted">Up to ${PLAN_SLOTS.length} plans; a place left empty is ignored. The table's price is its lowest plan price. Prices are decimal numbers such as 9.00; features are separated by semicolons.</p>
            ${errorFor('plans') && html`<p class="error-message" id="field-plans-error">Error: ${errorFor('plans')}</p>`}
          </div>
          <div class="plan-places">${SHOWN_SLOTS.map(planPlace)}</div>
          <details class="form-section" open=${MORE_SLOTS.some((slot) => PLAN_PARTS.some((part) => (values[`plan_${slot}_${part}`] ?? '') !== '' || errorFor(`plan_${slot}_${part}`) !== undefined))}>
            <summary>More plans (${MORE_SLOTS[0]} to ${MORE_SLOTS.at(-1)})</summary>
            <div class="plan-places">${MORE_SLOTS.map(planPlace)}</div>
          </details>
          ${RadioGroup({ name: 'recommended', legend: 'Recommended plan', value: values.recommended ?? '', error: errorFor('recommended'), choices: [
            { value: '', label: 'None' }, ...PLAN_SLOTS.map((slot) => ({ value: String(slot), label: `Plan ${slot}` })),
          ] })}
        </section>`,
        ...checkoutSettingsFields(mode, values, errorFor),
        Button({ variant: 'primary', children: checkout ? 'Save changes' : 'Create pricing table' }),
      ] })}
    </div>`,
  });
}
