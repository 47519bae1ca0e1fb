import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';

// A business's brand as tests and page states use it: a logo PNG drawn here (a brown roundel and
// a bar, on transparency) and a colour dark enough for white text.

/** A PNG of `width`×`height` pixels, each painted by `paint` (RGBA). */
export function makePng(width: number, height: number, paint: (x: number, y: number) => [number, number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) png.data.set(paint(x, y), (y * width + x) * 4);
  }
  return PNG.sync.write(png);
}

/** A 160×48 logo: a roundel and a bar in the roaster's brown. */
export const FIXTURE_LOGO = makePng(160, 48, (x, y) => {
  const inRoundel = (x - 24) ** 2 + (y - 24) ** 2 <= 20 ** 2;
  const inBar = x >= 56 && x < 152 && y >= 18 && y < 30;
  return inRoundel || inBar ? [0x7a, 0x3e, 0x12, 255] : [0, 0, 0, 0];
});
export const FIXTURE_LOGO_SHA256 = createHash('sha256').update(FIXTURE_LOGO).digest('hex');

/** The roaster's brown: white text on it is 8.9:1. */
export const FIXTURE_BRAND_COLOR = '#7a3e12';
