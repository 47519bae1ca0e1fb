import { imageSize } from 'image-size';
import { ApiError } from '../../core/errors.ts';
import type { LogoContentType } from '../../db/schema.ts';

// What is accepted as a business's logo, decided from the bytes alone (never the upload's type or
// name): PNG, JPEG, WebP or GIF by their magic numbers, at most 256 KiB (plenty for a logo shown
// a few dozen pixels high) and 2048 pixels a side, read from the header by image-size. SVG is
// refused: it is a document that can carry script.

export const MAX_LOGO_BYTES = 256 * 1024;
export const MAX_LOGO_SIDE = 2048;

const KINDS: ReadonlyArray<{ type: LogoContentType; sized: string; matches: (bytes: Uint8Array) => boolean }> = [
  { type: 'image/png', sized: 'png', matches: (b) => starts(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', sized: 'jpg', matches: (b) => starts(b, 0, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', sized: 'gif', matches: (b) => starts(b, 0, ascii('GIF87a')) || starts(b, 0, ascii('GIF89a')) },
  { type: 'image/webp', sized: 'webp', matches: (b) => starts(b, 0, ascii('RIFF')) && starts(b, 8, ascii('WEBP')) },
];

function ascii(text: string): number[] {
  return [...text].map((character) => character.charCodeAt(0));
}

function starts(bytes: Uint8Array, at: number, expected: readonly number[]): boolean {
  return bytes.length >= at + expected.length && expected.every((byte, i) => bytes[at + i] === byte);
}

export interface LogoImage {
  contentType: LogoContentType;
  width: number;
  height: number;
}

const refuse = (message: string) => new ApiError('invalid_logo', message, 'logo');

/** The logo's type and size in pixels, or invalid_logo saying what is wrong in the merchant's words. */
export function readLogoImage(bytes: Uint8Array): LogoImage {
  if (bytes.length === 0) throw refuse('Choose an image file for the logo.');
  if (bytes.length > MAX_LOGO_BYTES) throw refuse(`The logo is larger than ${MAX_LOGO_BYTES / 1024} KB. Save it smaller (a logo is shown at most 48 pixels high) and upload it again.`);
  const kind = KINDS.find((candidate) => candidate.matches(bytes));
  if (!kind) throw refuse('The logo must be a PNG, JPEG, WebP or GIF image, and this file is none of these. (SVG is not accepted: it can carry script.)');
  let size: { width: number; height: number; type?: string | undefined };
  try {
    // A copy of its own: image-size reads through a DataView to the end of the underlying buffer,
    // which for a pooled Buffer holds other bytes after a short, cut-off image.
    size = imageSize(new Uint8Array(bytes));
  } catch {
    throw refuse('The logo\'s size in pixels cannot be read: the image looks damaged. Save it again and upload it.');
  }
  if (size.type !== kind.sized || !(size.width > 0) || !(size.height > 0)) {
    throw refuse('The logo\'s size in pixels cannot be read: the image looks damaged. Save it again and upload it.');
  }
  if (size.width > MAX_LOGO_SIDE || size.height > MAX_LOGO_SIDE) {
    throw refuse(`The logo is ${size.width}×${size.height} pixels; it can be at most ${MAX_LOGO_SIDE}×${MAX_LOGO_SIDE}. Make it smaller and upload it again.`);
  }
  return { contentType: kind.type, width: size.width, height: size.height };
}
