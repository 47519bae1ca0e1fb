import type { VNode } from 'preact';
import { html } from '../render.ts';

/**
 * How a status feels: done (green), needs a look or is under way (amber), went wrong (red),
 * over without harm (grey), still waiting (blue). The colour only repeats the words.
 */
export type StatusTone = 'success' | 'warning' | 'danger' | 'neutral' | 'info';

/** A status in words, coloured by its tone; `status` (the code) names it for styles and tests. */
export function StatusBadge({ label, tone, status }: { label: string; tone: StatusTone; status?: string }): VNode {
  return html`<span class=${`status-badge ${tone}`} data-status=${status}>${label}</span>`;
}
