import type { VNode } from 'preact';
import { encodeQR } from 'qr';
import { html } from '../render.ts';

// A QR code as inline SVG: one path of the dark modules, each row's runs merged into one
// rectangle, so a payment request's code is a few kilobytes and needs no image request. The
// stylesheet (.qr-code) keeps it dark on white in both themes, as scanners need.

/** The quiet zone the symbol needs around it, in modules (ISO/IEC 18004 asks for 4). */
const QUIET_ZONE = 4;

/**
 * Each run of dark modules as `v1h<len>v-1` (down, across, up; the fill closes it), starting where
 * the previous run ended, so most commands are a few characters.
 */
function modulesPath(modules: readonly (readonly boolean[])[]): string {
  let d = '';
  modules.forEach((row, y) => {
    let pen = -1; // where the previous run of this row ended; -1 before the first
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      const start = x;
      while (row[x + 1]) x++;
      const length = x + 1 - start;
      d += `${pen < 0 ? `M${start} ${y}` : `m${start - pen} 0`}v1h${length}v-1`;
      pen = start + length;
    }
  });
  return d;
}

export interface QrCodeProps {
  /** What the code carries, e.g. a payment request URI. */
  text: string;
  /** What a screen reader says for it, e.g. "QR code: pay 25.00 USDC on Polygon". */
  label: string;
}

/** `text` as a QR code (error correction M: 15 % of it may be smudged or covered). */
export function QrCode({ text, label }: QrCodeProps): VNode {
  const modules = encodeQR(text, 'raw', { ecc: 'medium', border: QUIET_ZONE });
  return html`<svg class="qr-code" viewBox=${`0 0 ${modules.length} ${modules.length}`} role="img" aria-label=${label}><path d=${modulesPath(modules)} /></svg>`;
}
