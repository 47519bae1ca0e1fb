import { ApiError } from '../../src/core/errors.ts';
import { messagePage } from '../../src/dashboard/pages/message.ts';
import { keysPage } from '../../src/dashboard/pages/keys.ts';
import { paymentLinkNewPage } from '../../src/dashboard/pages/payment-links.ts';
import { teamPage } from '../../src/dashboard/pages/team.ts';
import { refusalIn } from '../../src/dashboard/refusals.ts';
import { landingPage, notFoundPage } from '../../src/http/landing.ts';
import { payerMessagePage } from '../../src/pages/views/message.ts';
import { de } from '../../src/pages/messages/de.ts';
import { roaster, seconds, signedIn, signedOut, type PageState } from './state-kit.ts';

// No dead ends (issue 23): the service's start page and "not found" pages, and a form refused
// for a reason fixed elsewhere (a Live link without a payout wallet), kept as typed.

const noWallet = (businessId: string) => refusalIn(new ApiError('no_payout_wallet', 'Set a payout wallet for this account before taking Live payments.'), businessId, 'live');

export const DEAD_END_STATES: readonly PageState[] = [
  signedOut({ fn: landingPage, name: 'start-page', main: true, fixed: true, shows: 'GET / in a browser: what the service is, the dashboard, the API reference and health' }, () => landingPage()),
  signedOut({ fn: notFoundPage, name: 'not-found', fixed: true, shows: 'an address nobody answers, outside the API, the dashboard and the payer pages: the ways on' }, () => notFoundPage()),
  signedIn({ fn: messagePage, name: 'dashboard-not-found', main: true, fixed: true, shows: 'a mistyped dashboard address, signed in: the frame, and the way back' },
    (_v, s) => messagePage('Not found', 'There is no page at this address. Check it for a typing mistake, or start again from the dashboard.', s)),
  signedOut({ fn: payerMessagePage, name: 'payer-not-found-de', fixed: true, shows: 'an unknown payer address for a buyer whose browser asks for German' },
    () => payerMessagePage({ t: de, title: de.notFoundTitle, text: de.notFoundText })),
  signedIn({ fn: paymentLinkNewPage, name: 'payment-link-no-wallet', main: true, shows: 'a Live link refused for want of a payout wallet: the form as typed, and the link to the wallet in Settings' },
    (v, s) => paymentLinkNewPage({ session: s, business: roaster(v), mode: 'live', role: 'owner', error: noWallet(roaster(v).id),
      values: { amount: v('25.00'), currency: 'EUR', description: v('Gift card for Ada'), reference: v('GC-2041'), collect_phone: 'on' } })),
  signedIn({ fn: teamPage, name: 'team-refused', shows: 'adding a person refused: the address as typed, and why beside it' },
    (v, s) => teamPage({ session: s, business: roaster(v), mode: 'test', role: 'owner', isOwner: true,
      members: [{ object: 'member', person_id: v('per_8Hc2LwQ5rT9mXz3vKp7NbY1d'), email: v('maya@kestrelcoffee.example'), role: 'owner', manages_keys: true, since: seconds('2025-10-01T09:00:00Z') }],
      notifications: { object: 'notification_preferences', held_payment_mail: true, role_receives: true },
      refused: { email: v('tomas.kestrelcoffee.example'), role: 'developer', error: refusalIn(new ApiError('invalid_email', 'email must be an email address.', 'email'), roaster(v).id, 'test') } })),
  signedIn({ fn: keysPage, name: 'keys-refused', shows: 'creating a key refused: the name as typed, and why beside it' },
    (v, s) => keysPage({ session: s, business: roaster(v), mode: 'test', manages: true, keys: [],
      refused: { name: v('Online shop server in the Hamburg roastery, the one by the loading dock behind the green door'), access: 'read_only',
        error: refusalIn(new ApiError('too_long', 'name must be at most 80 characters.', 'name'), roaster(v).id, 'test') } })),
];
