import type { VNode } from 'preact';
import type { NotificationPreferencesOut } from '../../resources/team/notifications.ts';
import { Button, Form, html } from '../../ui/index.ts';

/** The signed-in person's own mail about this business, on the Team page: on or off with one button. */
export function NotificationsSection({ action, preferences }: { action: string; preferences: NotificationPreferencesOut }): VNode {
  const on = preferences.held_payment_mail;
  return html`<section aria-labelledby="notifications-heading" id="notifications">
    <h2 id="notifications-heading">Your notifications</h2>
    ${preferences.role_receives
      ? html`<p>${on
          ? 'You get a mail when a payment is held and needs someone to look at it (for example, less than the full amount arrived).'
          : 'You do not get mail when a payment is held. Held payments still show under Payments.'}</p>
        ${Form({ action, label: 'Held-payment mail', children: Button({ name: 'held_payment_mail', value: on ? 'off' : 'on', children: on ? 'Stop held-payment mail' : 'Mail me about held payments' }) })}
        <p class="muted">This changes only your own mail, for this business.</p>`
      : html`<p class="muted">Held-payment mail goes to owners and developers; as a viewer you are not sent it.</p>`}
  </section>`;
}
