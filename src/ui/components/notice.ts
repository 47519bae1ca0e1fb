import type { ComponentChildren, VNode } from 'preact';
import { html } from '../render.ts';

/** A message about what just happened: success and warning are announced politely, errors at once. */
export function Notice({ tone, children }: { tone: 'success' | 'warning' | 'error'; children?: ComponentChildren }): VNode {
  return html`<div class=${`notice ${tone}`} role=${tone === 'error' ? 'alert' : 'status'}>${children}</div>`;
}
