import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { html } from './render.ts';

// A mail's two alternatives, text and HTML, from one description of it: the HTML through the
// escaping renderer (and its guard: no script, no style, no unsafe link), the text the same
// parts in the same order. HTML mail keeps to what mail clients render: a table, plain
// attributes (width, cellpadding), no stylesheet, no remote image. The content sits in the middle
// cell of three: 560 pixels wide on a desktop, and narrower on a phone, since a table cell's
// width gives way where a table's own would not.

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

/** Longer than this without a space, a word could push a phone's screen wider: it gets places to break. */
const LONG_WORD = 20;

/**
 * Text with a <wbr> after each / _ - . @ ? & = of a long word (addresses, ids), and every 20
 * characters of a run with none: mail has no stylesheet to wrap a long word on a phone.
 */
function breakable(text: string): Array<string | VNode> {
  return text.split(/(\s+)/).flatMap((word) => {
    if (word.length <= LONG_WORD) return [word];
    const pieces = word.match(/[^/_\-.@?&=]*[/_\-.@?&=]?/g)!.filter((piece) => piece !== '')
      .flatMap((piece) => piece.match(new RegExp(`.{1,${LONG_WORD}}`, 'gsu'))!);
    return pieces.flatMap((piece, index) => (index === 0 ? [piece] : [html`<wbr />`, piece]));
  });
}

function htmlOf(mail: MailContent): string {
  const body = html`<html lang=${mail.lang}>
    <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>${oneLine(mail.subject)}</title></head>
    <body>
      <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td></td><td width="560">
        <table role="presentation" width="100%" cellpadding="16" cellspacing="0" border="0">
          ${mail.banner && html`<tr><td bgcolor="#fff3cd"><strong>${mail.banner}</strong></td></tr>`}
          <tr><td>
            <p><strong>${breakable(mail.brand)}</strong></p>
            <h1>${breakable(mail.heading)}</h1>
            ${mail.paragraphs.map((paragraph) => html`<p>${breakable(paragraph)}</p>`)}
            <table cellpadding="4" cellspacing="0" border="0">
              ${mail.facts.map((fact) => html`<tr><th align="left" valign="top">${fact.label}</th><td>${breakable(fact.value)}</td></tr>`)}
            </table>
            ${mail.items && html`<h2>${mail.items.heading}</h2>
              <table cellpadding="4" cellspacing="0" border="0">
                ${mail.items.rows.map((row) => html`<tr><td>${breakable(row.name)}</td><td align="right">${row.amount}</td></tr>`)}
              </table>`}
            ${mail.link && html`<p><a href=${mail.link.url}>${mail.link.label}</a></p>`}
            <hr />
            <p><small>${breakable(mail.footer)}</small></p>
          </td></tr>
        </table>
      </td><td></td></tr></table>
    </body>
  </html>`;
  return `<!doctype html>${renderToString(body)}`;
}

/** The mail's subject, text and HTML: every value escaped in the HTML, the subject one line. */
export function renderMail(mail: MailContent): RenderedMail {
  return { subject: oneLine(mail.subject), text: textOf(mail), html: htmlOf(mail) };
}
