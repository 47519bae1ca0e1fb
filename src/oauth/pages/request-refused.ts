import type { VNode } from 'preact';
import { html, Layout } from '../../ui/index.ts';

/**
 * An agent's sign-in request that cannot go on and cannot be sent back (no known client or
 * redirect_uri to trust): said on a page, naming what is wrong.
 */
export function requestRefusedPage(reason: string): VNode {
  return Layout({
    title: 'Sign-in request refused',
    children: html`<div>
      <h1>This sign-in request cannot go on</h1>
      <p>${reason}</p>
      <p>Nothing was sent back to the application. Start again from the agent.</p>
    </div>`,
  });
}
