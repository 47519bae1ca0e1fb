import type { ComponentChildren, VNode } from 'preact';
import { html } from '../render.ts';

// Form fields: each has a visible label bound to its control, an optional hint, and an error
// message tied to the control with aria-describedby (and aria-invalid) when the value was refused.

interface FieldBase {
  /** The form field's name; also makes the element ids unless `id` is given. */
  name: string;
  id?: string;
  hint?: ComponentChildren;
  /** Why the submitted value was refused. */
  error?: ComponentChildren;
  required?: boolean;
  /** Not sent with the form (one of several a script switches between). */
  disabled?: boolean;
  /** The word before an error, in the page's language ("Error" unless given). */
  errorLabel?: string;
}

/** The hint and error paragraphs, and the aria values that tie them to the control. */
function descriptions(id: string, hint: ComponentChildren, error: ComponentChildren, errorLabel = 'Error') {
  const hintId = hint != null ? `${id}-hint` : undefined;
  const errorId = error != null ? `${id}-error` : undefined;
  return {
    describedBy: [hintId, errorId].filter(Boolean).join(' ') || undefined,
    invalid: errorId ? 'true' : undefined,
    messages: [hintId && html`<p class="hint" id=${hintId}>${hint}</p>`, errorId && html`<p class="error-message" id=${errorId}>${errorLabel}: ${error}</p>`],
  };
}

export interface TextFieldProps extends FieldBase {
  label: ComponentChildren;
  type?: 'text' | 'email' | 'url' | 'password' | 'search' | 'tel' | 'number';
  value?: string;
  maxLength?: number;
  autocomplete?: string;
  /** Shown to select and copy (an address the service made), not to change. */
  readOnly?: boolean;
}

export function TextField({ name, id = `field-${name}`, label, hint, error, errorLabel, required, disabled, type = 'text', value, maxLength, autocomplete, readOnly }: TextFieldProps): VNode {
  const { describedBy, invalid, messages } = descriptions(id, hint, error, errorLabel);
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${messages}
    <input id=${id} name=${name} type=${type} value=${value} required=${required} maxlength=${maxLength} autocomplete=${autocomplete} readonly=${readOnly} disabled=${disabled}
      aria-describedby=${describedBy} aria-invalid=${invalid} />
  </div>`;
}

export interface Choice {
  value: string;
  label: ComponentChildren;
}

export interface RadioGroupProps extends FieldBase {
  legend: ComponentChildren;
  choices: readonly Choice[];
  /** The chosen value. */
  value?: string;
}

export function RadioGroup({ name, id = `field-${name}`, legend, hint, error, required, choices, value }: RadioGroupProps): VNode {
  // A group takes no aria-invalid (ARIA 1.2); the error is read with the legend through describedby.
  const { describedBy, messages } = descriptions(id, hint, error);
  return html`<fieldset id=${id} aria-describedby=${describedBy}>
    <legend>${legend}</legend>
    ${messages}
    ${choices.map((choice, index) => html`<div class="choice">
      <input type="radio" id=${`${id}-${index}`} name=${name} value=${choice.value} checked=${choice.value === value} required=${required} />
      <label for=${`${id}-${index}`}>${choice.label}</label>
    </div>`)}
  </fieldset>`;
}

export interface SelectProps extends FieldBase {
  label: ComponentChildren;
  options: readonly { value: string; label: string }[];
  value?: string;
  autocomplete?: string;
}

export function Select({ name, id = `field-${name}`, label, hint, error, errorLabel, required, disabled, options, value, autocomplete }: SelectProps): VNode {
  const { describedBy, invalid, messages } = descriptions(id, hint, error, errorLabel);
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${messages}
    <select id=${id} name=${name} required=${required} disabled=${disabled} autocomplete=${autocomplete} aria-describedby=${describedBy} aria-invalid=${invalid}>
      ${options.map((option) => html`<option value=${option.value} selected=${option.value === value}>${option.label}</option>`)}
    </select>
  </div>`;
}

export interface CheckboxGroupProps extends Omit<FieldBase, 'name' | 'required'> {
  /** Names the group's ids. */
  id: string;
  legend: ComponentChildren;
  /** Each box: its own form field, sent as "on" when ticked. */
  boxes: ReadonlyArray<{ name: string; label: ComponentChildren; checked?: boolean }>;
}

/** Several yes-or-no choices under one legend, each its own field. */
export function CheckboxGroup({ id, legend, hint, error, boxes }: CheckboxGroupProps): VNode {
  const { describedBy, messages } = descriptions(id, hint, error);
  return html`<fieldset id=${id} aria-describedby=${describedBy}>
    <legend>${legend}</legend>
    ${messages}
    ${boxes.map((box) => html`<div class="choice">
      <input type="checkbox" id=${`${id}-${box.name}`} name=${box.name} checked=${box.checked === true} />
      <label for=${`${id}-${box.name}`}>${box.label}</label>
    </div>`)}
  </fieldset>`;
}

export interface FileFieldProps extends FieldBase {
  label: ComponentChildren;
  /** What the browser's picker offers (a hint to the person: the server decides by the bytes). */
  accept?: string;
}

/** A file to upload (its form must be multipart/form-data). */
export function FileField({ name, id = `field-${name}`, label, hint, error, required, accept }: FileFieldProps): VNode {
  const { describedBy, invalid, messages } = descriptions(id, hint, error);
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${messages}
    <input id=${id} name=${name} type="file" accept=${accept} required=${required} aria-describedby=${describedBy} aria-invalid=${invalid} />
  </div>`;
}
