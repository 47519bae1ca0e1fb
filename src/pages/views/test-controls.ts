import type { ComponentChildren, VNode } from 'preact';
import { html } from '../../ui/index.ts';
import type { Messages } from '../messages/en.ts';

/**
 * Test mode's stand-ins for what money or a card could do: a box of its own at the foot of the
 * page, labelled as Test controls and in the secondary style, apart from what a buyer would use.
 */
export function TestControls({ t, hint, children }: { t: Messages; hint: ComponentChildren; children: ComponentChildren }): VNode {
  return html`<section class="test-controls" aria-labelledby="test-controls-heading">
    <h2 id="test-controls-heading">${t.testControls}</h2>
    <p class="muted">${hint}</p>
    ${children}
  </section>`;
}
