import { renderToString } from 'preact-render-to-string';
import { html } from './render.ts';

// A mail's two alternatives, text and HTML, from one description of it: the HTML through the
// escaping renderer (and its guard: no script, no style, no unsafe link), the text the same
// parts in the same order. HTML mail keeps to what mail clients render: a table, plain
// attributes (width, cellpadding), no stylesheet, no remote image.

export interface MailContent {
  /** The subject line: one line whatever the parts hold (a CR or LF could forge a header). */
  subject: string;
  /** The language the mail is written in (its `lang`). */
  lang: string;
  /** Whose mail this is: the business's name, or the service's. */
  brand: string;
  heading: string;
  /** A line set apart before everything (Test mode). */
  banner?: string;
  paragraphs: readonly string[];
  /** Labelled values: amount, time, reference. */
  facts: ReadonlyArray<{ label: string; value: string }>;
  /** What was bought, when more than one line says it. */
  items?: { heading: string; rows: ReadonlyArray<{ name: string; amount: string }> };
  link?: { label: string; url: string };
  footer: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** Control characters (CR, LF, tab, …) become one space: a subject stays one header line. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

function textOf(mail: MailContent): string {
  const width = Math.max(0, ...mail.facts.map((fact) => fact.label.length)) + 2;
  return [
    ...(mail.banner ? [`*** ${mail.banner} ***`, ''] : []),
    mail.heading,
    '',
    ...mail.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...mail.facts.map((fact) => `  ${`${fact.label}:`.padEnd(width)}${fact.value}`),
    ...(mail.items ? ['', mail.items.heading, ...mail.items.rows.map((row) => `  - ${row.name}: ${row.amount}`)] : []),
    ...(mail.link ? ['', `${mail.link.label}:`, `  ${mail.link.url}`] : []),
    '',
    '--',
    mail.footer,
  ].join('\n');
}

function htmlOf(mail: MailContent): string {
  const body = html`<html lang=${mail.lang}>
    <head><meta charset="utf-8" /><title>${oneLine(mail.subject)}</title></head>
    <body>
      <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td align="center">
        <table role="presentation" width="560" cellpadding="16" cellspacing="0" border="0">
          ${mail.banner && html`<tr><td bgcolor="#fff3cd"><strong>${mail.banner}</strong></td></tr>`}
          <tr><td>
            <p><strong>${mail.brand}</strong></p>
            <h1>${mail.heading}</h1>
            ${mail.paragraphs.map((paragraph) => html`<p>${paragraph}</p>`)}
            <table cellpadding="4" cellspacing="0" border="0">
              ${mail.facts.map((fact) => html`<tr><th align="left" valign="top">${fact.label}</th><td>${fact.value}</td></tr>`)}
            </table>
            ${mail.items && html`<h2>${mail.items.heading}</h2>
              <table cellpadding="4" cellspacing="0" border="0">
                ${mail.items.rows.map((row) => html`<tr><td>${row.name}</td><td align="right">${row.amount}</td></tr>`)}
              </table>`}
            ${mail.link && html`<p><a href=${mail.link.url}>${mail.link.label}</a></p>`}
            <hr />
            <p><small>${mail.footer}</small></p>
          </td></tr>
        </table>
      </td></tr></table>
    </body>
  </html>`;
  return `<!doctype html>${renderToString(body)}`;
}

/** The mail's subject, text and HTML: every value escaped in the HTML, the subject one line. */
export function renderMail(mail: MailContent): RenderedMail {
  return { subject: oneLine(mail.subject), text: textOf(mail), html: htmlOf(mail) };
}
