import { paymentRequestUri } from '../../src/core/payment-request.ts';
import { Button, Form, html, Layout, Money, Notice, QrCode, RadioGroup, renderPage, Select, Table, TextField, Time, type HtmlPage } from '../../src/ui/index.ts';

// A page made of every component, with one value in every slot a merchant, buyer or agent
// client could fill: the hostile-input test fills it with attacks, the accessibility test with
// ordinary text. Each slot's element is marked so the tests find what landed where.

export const AT = '2026-03-01T12:34:56.000Z';
const PAYMENT_REQUEST = paymentRequestUri({ coin: 'polygon_usdc', to: '0x8e23Ee67d1332aD560396262C48ffbB01F93D052', amountMicros: 25_000_000n });

export function samplePage(value: string, viewer: { csrfToken: string; timeZone: string }): HtmlPage {
  const nav = html`<a href=${value} id="nav-link">${value}</a>`;
  return renderPage(Layout({
    title: value,
    nav,
    testModeBanner: html`<span id="banner">${value}</span>`,
    children: html`<div>
      <h1 id="heading">${value}</h1>
      ${Notice({ tone: 'error', children: html`<span id="notice">${value}</span>` })}
      ${Notice({ tone: 'success', children: 'Saved.' })}
      ${Table({
        caption: value,
        columns: ['Agent', value, 'Amount', 'Created'],
        rows: [[html`<span id="cell">${value}</span>`, html`<a id="cell-link" href=${value}>${value}</a>`, Money({ amount: value, currency: value }), Time({ at: AT })]],
        empty: 'None.',
      })}
      ${Table({ label: value, columns: ['Key'], rows: [], empty: value })}
      ${QrCode({ text: PAYMENT_REQUEST, label: value })}
      ${Form({
        action: value,
        label: value,
        children: [
          TextField({ name: 'description', label: value, hint: value, error: value, value, maxLength: 20_000, required: true }),
          TextField({ name: 'email', label: 'Email', type: 'email', hint: 'Where receipts go.', autocomplete: 'email' }),
          RadioGroup({ name: 'mode', legend: value, hint: value, error: value, value: 'test', choices: [{ value, label: value }, { value: 'test', label: 'Test' }] }),
          Select({ name: 'business', label: value, hint: value, error: value, value, options: [{ value, label: value }, { value: 'b_2', label: 'Second business' }] }),
          Button({ variant: 'primary', name: 'decision', value, children: value }),
          Button({ variant: 'danger', name: 'decision', value: 'deny', children: 'Deny' }),
        ],
      })}
    </div>`,
  }), viewer);
}
