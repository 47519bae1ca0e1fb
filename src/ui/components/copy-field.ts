import type { ComponentChildren, VNode } from 'preact';
import { html } from '../render.ts';
import { QrCode } from './qr-code.ts';

// A value to copy (an address, a snippet): in a readonly field anyone can select, with a copy
// button the page's script reveals (hidden without script, where it could not work) and a live
// region that says "Copied". The script is the dashboard's (dashboard/assets/dashboard.js).

export interface CopyFieldProps {
  /** Makes the ids: the field is `copy-<name>`. */
  name: string;
  label: ComponentChildren;
  value: string;
  hint?: ComponentChildren;
  /** What the button says, such as "Copy the address". */
  copyLabel: string;
  /** Several lines (a snippet): a textarea of this many rows. */
  rows?: number;
  /** More beside the button, such as an Open link. */
  actions?: ComponentChildren;
}

/**
 * The button that copies the element `target` (a field's value, else its text), hidden until the
 * script shows it, and the live region that says what happened; `children` go between them.
 */
export function CopyButton({ target, label, children }: { target: string; label: string; children?: ComponentChildren }): VNode {
  return html`<div class="copy-actions">
    <button type="button" class="button" data-copy=${target} hidden>${label}</button>
    ${children}
    <span class="copy-status" id=${`${target}-status`} aria-live="polite"></span>
  </div>`;
}

export function CopyField({ name, label, value, hint, copyLabel, rows, actions }: CopyFieldProps): VNode {
  const id = `copy-${name}`;
  const hintId = hint == null ? undefined : `${id}-hint`;
  return html`<div class="copy-field">
    <label for=${id}>${label}</label>
    ${hintId && html`<p class="hint" id=${hintId}>${hint}</p>`}
    ${rows === undefined
      ? html`<input id=${id} type="text" value=${value} readonly data-select-on-focus aria-describedby=${hintId} />`
      : html`<textarea id=${id} rows=${rows} readonly data-select-on-focus spellcheck="false" aria-describedby=${hintId}>${value}</textarea>`}
    ${CopyButton({ target: id, label: copyLabel, children: actions })}
  </div>`;
}

export interface ShareAddressProps {
  name: string;
  label: ComponentChildren;
  /** A page's address (http or https): copied, opened in a new tab, and carried by the QR code. */
  url: string;
  hint?: ComponentChildren;
  /** Names the value in the button and the code, such as "payer address". */
  what: string;
  /** What the link to it says, such as "Open the payer page". */
  openLabel: string;
}

/** An address to share: copy it, open it, or show its QR code to a phone. */
export function ShareAddress({ name, label, url, hint, what, openLabel }: ShareAddressProps): VNode {
  return html`<div class="share">
    ${CopyField({ name, label, value: url, hint, copyLabel: `Copy the ${what}`, actions: html`<a href=${url} target="_blank" rel="noopener">${openLabel}<span class="visually-hidden"> (in a new tab)</span></a>` })}
    ${QrCode({ text: url, label: `QR code of the ${what}` })}
  </div>`;
}
