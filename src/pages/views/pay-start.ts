import type { VNode } from 'preact';
import type { PayerView } from '../../resources/payer/view.ts';
import { Button, Form, html, Notice } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';
import { DetailsFields, type FieldErrors, type FormValues } from './details.ts';
import { PaymentSummary } from './summary.ts';
import { PayerPage, brandFrame } from './frame.ts';

/** The first step: what is being paid, and the buyer's email and the details the merchant asks for. */
export function payStartPage({ t, view, action, values, errors, timeLeft }: { t: Messages; view: PayerView; action: string; values: FormValues; errors: FieldErrors; timeLeft: string | null }): VNode {
  const hasErrors = Object.keys(errors).length > 0;
  return PayerPage({
    t, business: view.business.name, livemode: view.livemode, theme: view.checkout?.theme, ...brandFrame(view.business.id, view.brand),
    title: t.payTitle(view.description),
    summary: PaymentSummary({ t, view, timeLeft }),
    children: html`<section aria-labelledby="details-heading">
      <h2 id="details-heading">${t.yourDetails}</h2>
      ${hasErrors && Notice({ tone: 'error', children: t.fixErrors })}
      ${Form({ action, label: t.yourDetails, children: [
        DetailsFields({ t, collect: view.collect, values, errors }),
        Button({ variant: 'primary', children: t.continue }),
      ] })}
    </section>`,
  });
}
