import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.ts';
import { BrandColorField, contrastRatio, relativeLuminance } from '../../src/resources/brand/color.ts';
import { readLogoImage } from '../../src/resources/brand/logo-image.ts';
import { FIXTURE_LOGO, makePng } from '../support/brand-fixture.ts';

// What a logo is taken as (by its bytes alone) and which colours pass WCAG's 4.5:1 under white text.

const base64 = (text: string) => Buffer.from(text, 'base64');
// Tiny real images of each kind (1×1), as their encoders write them.
const GIF = base64('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==');
const WEBP = base64('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==');
const JPEG = base64('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==');

function refusal(bytes: Uint8Array): string {
  try {
    readLogoImage(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_logo');
    expect((error as ApiError).field).toBe('logo');
    return (error as ApiError).message;
  }
  throw new Error('not refused');
}

describe('logo images', () => {
  it('takes PNG, JPEG, WebP and GIF by their bytes, with their size in pixels', () => {
    expect(readLogoImage(FIXTURE_LOGO)).toEqual({ contentType: 'image/png', width: 160, height: 48 });
    expect(readLogoImage(JPEG)).toEqual({ contentType: 'image/jpeg', width: 1, height: 1 });
    expect(readLogoImage(WEBP)).toEqual({ contentType: 'image/webp', width: 1, height: 1 });
    expect(readLogoImage(GIF)).toEqual({ contentType: 'image/gif', width: 1, height: 1 });
  });

  it('refuses SVG, other files, damaged images, and images past the limits', () => {
    expect(refusal(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'))).toContain('SVG is not accepted');
    expect(refusal(Buffer.from('BM6\0\0\0\0\0\0\0'))).toContain('PNG, JPEG, WebP or GIF');
    expect(refusal(new Uint8Array())).toContain('Choose an image file');
    expect(refusal(FIXTURE_LOGO.subarray(0, 12))).toContain('cannot be read');
    // Cut inside the header, in a buffer with other bytes after it (as Node's pooled buffers are).
    expect(refusal(Buffer.concat([FIXTURE_LOGO.subarray(0, 20), Buffer.alloc(64, 0x7f)]).subarray(0, 20))).toContain('cannot be read');
    // A PNG's signature before a GIF's insides: the header read must agree with the magic number.
    expect(refusal(Buffer.concat([FIXTURE_LOGO.subarray(0, 8), GIF]))).toContain('cannot be read');
    expect(refusal(makePng(2049, 1, () => [0, 0, 0, 255]))).toContain('2049×1 pixels');
    expect(readLogoImage(makePng(2048, 1, () => [0, 0, 0, 255])).width).toBe(2048);
    expect(refusal(Buffer.concat([FIXTURE_LOGO, Buffer.alloc(256 * 1024)]))).toContain('larger than 256 KB');
  });
});

describe('brand colours', () => {
  it('computes WCAG 2 luminance and contrast', () => {
    expect(relativeLuminance('#ffffff')).toBe(1);
    expect(relativeLuminance('#000000')).toBe(0);
    expect(contrastRatio('#000000', '#ffffff')).toBe(21);
    expect(contrastRatio('#ffffff', '#767676')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#0a54c7', '#ffffff')).toBeGreaterThan(6);
  });

  it('takes #rrggbb dark enough for white text, stored lower case; refuses the rest saying why', () => {
    expect(BrandColorField.parse(' #7A3E12 ')).toBe('#7a3e12');
    expect(BrandColorField.parse('#767676')).toBe('#767676');
    expect(BrandColorField.parse(null)).toBeNull();
    const message = (value: string) => BrandColorField.safeParse(value).error?.issues[0]?.message ?? '';
    expect(message('#777777')).toContain('too light');
    expect(message('#777777')).toContain('4.48:1');
    for (const bad of ['red', '#fff', '#12345g', '7a3e12', '#7a3e12;}']) expect(message(bad), bad).toContain('#rrggbb');
  });
});
