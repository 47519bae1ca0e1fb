import { businessHomePage } from '../../src/dashboard/pages/business-home.ts';
import type { BusinessHome } from '../../src/resources/businesses/home.ts';
import { roaster, signedIn, VIEWER, type Fill, type PageState } from './state-kit.ts';

// A business's home in each state a person meets it: a busy Test week with a held payment and a
// failing endpoint, a quiet start, and Live with its go-live checklist. What buyers and
// developers typed (descriptions, endpoint addresses, errors) goes through `v`.

const frame = (v: Fill, role: 'owner' | 'viewer' = 'owner') => ({ business: roaster(v), mode: 'test' as const, role });
const since = { today: new Date('2026-03-04T00:00:00Z'), week: new Date('2026-03-02T00:00:00Z') };

function busy(v: Fill): BusinessHome {
  return {
    zone: 'UTC', since,
    paid: [
      { currency: 'EUR', todayCount: 1, today: '12.00', weekCount: 4, week: '61.50' },
      { currency: 'USD', todayCount: 3, today: '125.10', weekCount: 11, week: '688.40' },
    ],
    waitingCount: 0, waiting: [],
    heldCount: 7,
    held: [
      { id: 'pay_N7pL3kWq9Xc2Vb8RmT4HsY6e', description: v('Colombia Huila, 250 g filter'), amount: '18.00', currency: 'USD', created: new Date('2026-03-04T09:12:00Z') },
      { id: 'pay_K3mW8qXp2Lr7Vn4Tc9Bz5HjD', description: v('Order #1043 at Kestrel Coffee Roasters'), amount: '53.70', currency: 'USD', created: new Date('2026-03-03T16:40:00Z') },
    ],
    failing: [
      { id: 'we_W4kT8mXq3Lp9Rn2Vc7Bz5HdJ', url: v('https://shop.kestrelcoffee.example/webhooks/payments'), lastStatus: 503, lastError: v('Service Unavailable'), lastAttempt: new Date('2026-03-04T09:26:00Z'), gaveUp: false },
      { id: 'we_P9nL2wXk7Rq4Tm8Vc3Bz6HsF', url: v('https://erp.kestrelcoffee.example/hooks'), lastStatus: null, lastError: v('connect ECONNREFUSED'), lastAttempt: new Date('2026-03-03T08:00:00Z'), gaveUp: true },
    ],
  };
}

const quiet: BusinessHome = { zone: 'Europe/Berlin', since, paid: [], waitingCount: 0, waiting: [], heldCount: 0, held: [], failing: [] };
const polygon = { network: 'Polygon', tokens: ['USDC'], healthy: true, served: true, reportedAt: new Date('2026-03-04T10:15:00Z'), problem: null, forwardsHappen: true, forwardingProblem: null };

export const HOME_STATES: readonly PageState[] = [
  signedIn({ fn: businessHomePage, name: 'business-home', main: true, shows: 'a business\'s Test home: paid today and this week per currency, held payments to review, failing endpoints' },
    (v, s) => businessHomePage({ session: s, ...frame(v), home: busy(v) })),
  signedIn({ fn: businessHomePage, name: 'business-home-empty', shows: 'a new business\'s home as a viewer sees it: nothing paid yet, with the way to share a payment link' },
    (v, s) => businessHomePage({ session: s, ...frame(v, 'viewer'), home: quiet }), VIEWER),
  signedIn({ fn: businessHomePage, name: 'business-home-live', main: true, shows: 'the Live home: this week\'s payments and the go-live checklist with one network watched and no Live endpoint' },
    (v, s) => businessHomePage({
      session: s, ...frame(v), mode: 'live', home: { ...quiet, zone: 'UTC', paid: [{ currency: 'USD', todayCount: 0, today: '0.00', weekCount: 2, week: '96.00' }] },
      checklist: {
        payoutWallet: '0x1111111111111111111111111111111111111111', freshSeconds: 120, providers: [], liveEndpoints: 0,
        networks: [polygon],
      },
    })),
  signedIn({ fn: businessHomePage, name: 'business-home-live-waiting', main: true, shows: 'the Live home while the processor cannot forward: payments waiting to be forwarded, and the checklist\'s network not done' },
    (v, s) => businessHomePage({
      session: s, ...frame(v), mode: 'live',
      home: { ...quiet, zone: 'UTC', waitingCount: 3, waiting: [
        { id: 'pay_Lq7Xm2Vk9Rp4Tn8Wc3Bz6HsJ', description: v('Ethiopia Guji, 1 kg'), amount: '30.00', currency: 'USD', since: new Date('2026-03-04T09:16:00Z') },
        { id: 'pay_N7pL3kWq9Xc2Vb8RmT4HsY6e', description: v('Colombia Huila, 250 g filter'), amount: '18.00', currency: 'USD', since: new Date('2026-03-04T09:40:00Z') },
      ] },
      checklist: {
        payoutWallet: '0x1111111111111111111111111111111111111111', freshSeconds: 120, providers: [], liveEndpoints: 1,
        networks: [{ ...polygon, forwardsHappen: false, forwardingProblem: v('The gas wallet 0x6d4c8a9e2b1f3c5d7e9a0b2c4d6e8f0a1b3c5d7e holds 0 of polygon\'s native coin, too little to pay for a forward: fund it.') }],
      },
    })),
  signedIn({ fn: businessHomePage, name: 'business-home-live-not-ready', shows: 'a Live home before Live can take payments: the warning at the top, no payout wallet and no network watched in the checklist' },
    (v, s) => businessHomePage({
      session: s, ...frame(v), mode: 'live', home: quiet,
      checklist: { payoutWallet: null, freshSeconds: 120, providers: [], liveEndpoints: 0, networks: [] },
    })),
];
