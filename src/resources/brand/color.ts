import { z } from 'zod';
import { coded } from '../../core/validation.ts';

// The brand colour is the pay button's background under white text, so it must keep WCAG AA's
// 4.5:1 against white. A lighter colour is refused rather than given dark text: the merchant
// sees why and picks a darker shade, and the button's text stays the same colour on every page.

/** WCAG 2's contrast minimum for normal text (AA). */
export const MIN_CONTRAST = 4.5;

/** The text drawn on the brand colour. */
export const BRAND_TEXT = '#ffffff';

/** WCAG 2 relative luminance of a `#rrggbb` colour (sRGB channels linearised). */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const HEX_COLOR = /^#[0-9a-f]{6}$/;

/** A brand colour as given: `#rrggbb` (any case, stored lower case) dark enough for white text; null: none. */
export const BrandColorField = z.string(coded('invalid_brand_color', 'The brand colour must be text.'))
  .trim()
  .toLowerCase()
  .regex(HEX_COLOR, coded('invalid_brand_color', 'The brand colour must be written #rrggbb, for example #0a54c7.'))
  .refine((color) => contrastRatio(color, BRAND_TEXT) >= MIN_CONTRAST, {
    error: (issue) => coded('invalid_brand_color', `The brand colour ${String(issue.input)} is too light: white text on it has a contrast of ${contrastRatio(String(issue.input), BRAND_TEXT).toFixed(2)}:1, and buttons need at least ${MIN_CONTRAST}:1. Choose a darker shade.`).error,
  })
  .nullable();
