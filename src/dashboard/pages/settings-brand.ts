import type { VNode } from 'preact';
import { MIN_CONTRAST } from '../../resources/brand/color.ts';
import { MAX_LOGO_BYTES, MAX_LOGO_SIDE } from '../../resources/brand/logo-image.ts';
import type { BrandOut } from '../../resources/brand/read.ts';
import { Button, FileField, Form, html, TextField } from '../../ui/index.ts';

// The settings' Brand section: the logo and colour the business's payer pages show. Owners
// change them; everyone else sees them. A refused logo or colour is said beside its field, and
// the colour typed is kept.

/** The colour the picker shows when the business has none: the service's own button colour. */
export const PICKER_DEFAULT = '#0a54c7';

export interface BrandSectionProps {
  brand: BrandOut;
  owner: boolean;
  /** Where the colour is posted (the settings form) and the logo (its multipart form). */
  paths: { settings: string; logo: string };
  /** What was typed into the colour's text field, when it was refused. */
  typedColor?: string | undefined;
  error?: { field: string | undefined; message: string } | undefined;
}

export function BrandSection({ brand, owner, paths, typedColor, error }: BrandSectionProps): VNode {
  const fieldError = (field: string) => (error?.field === field ? error.message : undefined);
  const color = typedColor ?? brand.color ?? '';
  // The picker shows the colour the text field holds (a refused one too, so the two agree), and
  // the form says what both showed: a later change to either is what the person asks for.
  const picker = /^#[0-9a-f]{6}$/i.test(color.trim()) ? color.trim().toLowerCase() : brand.color ?? PICKER_DEFAULT;
  return html`<section aria-labelledby="brand-heading">
    <h2 id="brand-heading">Brand</h2>
    <p>Your logo and colour on the pages your buyers pay on.</p>
    <h3>Logo</h3>
    ${brand.logo
      ? html`<div class="logo-preview"><img src=${brand.logo.path} alt="Your logo as buyers see it" width=${brand.logo.width} height=${brand.logo.height} /></div>
        <p class="muted">${brand.logo.width}×${brand.logo.height} pixels, ${Math.ceil(brand.logo.byte_size / 1024)} KB.</p>`
      : html`<p class="muted">No logo: your payer pages show your business's name alone.</p>`}
    ${owner && Form({ action: paths.logo, label: 'Upload a logo', enctype: 'multipart/form-data', children: [
      FileField({ name: 'logo', label: brand.logo ? 'A new logo' : 'Logo', accept: 'image/png,image/jpeg,image/webp,image/gif',
        hint: `A PNG, JPEG, WebP or GIF image of at most ${MAX_LOGO_BYTES / 1024} KB and ${MAX_LOGO_SIDE}×${MAX_LOGO_SIDE} pixels. It is shown at most 48 pixels high.`,
        error: fieldError('logo') }),
      Button({ children: 'Upload logo' }),
    ] })}
    ${owner && brand.logo && Form({ action: paths.logo, label: 'Remove the logo', children: Button({ name: 'remove', value: 'logo', children: 'Remove logo' }) })}
    <h3>Colour</h3>
    ${owner
      ? Form({ action: paths.settings, label: 'Brand colour', children: [
          html`<input type="hidden" name="brand_color_was" value=${color} />`,
          html`<div class="field">
            <label for="field-brand_color_picker">Pick a colour</label>
            <input id="field-brand_color_picker" name="brand_color_picker" type="color" value=${picker} />
          </div>`,
          TextField({ name: 'brand_color', label: 'or type it (#rrggbb)', value: color, maxLength: 7, autocomplete: 'off', error: fieldError('brand_color'),
            hint: `The pay button's colour, under white text: it needs a contrast of at least ${MIN_CONTRAST}:1 with white, so very light colours are refused. Empty it for the service's own colour.` }),
          Button({ children: 'Save colour' }),
        ] })
      : html`<p>${brand.color ? html`<code>${brand.color}</code>` : 'The service\'s own colour.'}</p>`}
  </section>`;
}
