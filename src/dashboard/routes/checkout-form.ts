import { formField, type Form } from '../../core/form.ts';
import type { CheckoutForm } from '../pages/checkouts.ts';
import { CHECKOUT_FIELDS } from '../pages/checkouts.ts';
import { COLLECT_BOXES } from '../pages/payment-links.ts';

// A checkout's form as typed, and as the API's checkout fields: shared by every kind's form.

/** The form as typed (unticked boxes are absent), with any further fields of a kind's form. */
export function valuesOf(form: Form, more: readonly string[] = []): CheckoutForm & Partial<Record<string, string>> {
  const values: Partial<Record<string, string>> = {};
  for (const name of [...CHECKOUT_FIELDS, ...COLLECT_BOXES.map((box) => box.name), ...more]) {
    const value = formField(form, name);
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/** The form's values as the API's checkout fields: optional text left empty is none, the boxes are booleans. */
export function inputOf(values: CheckoutForm): Record<string, unknown> {
  const text = (name: keyof CheckoutForm) => values[name]?.trim() ?? '';
  const choice = text('routing_choice') || 'smart';
  const collect = Object.fromEntries(COLLECT_BOXES.filter((box) => values[box.name] === 'on').map((box) => [box.name.replace(/^collect_/, ''), true]));
  return {
    name: values.name ?? '',
    description: text('description') || null,
    amount: text('amount'),
    currency: text('currency'),
    success_url: text('success_url') || null,
    theme: text('theme') || 'light',
    button_label: text('button_label') || null,
    crypto: values.crypto === 'on',
    routing: { choice, provider: choice === 'fixed' ? text('routing_provider') || null : null, fallback: values.routing_fallback === 'on' },
    collect: Object.keys(collect).length > 0 ? collect : null,
  };
}
