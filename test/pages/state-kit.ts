import type { VNode } from 'preact';
import type { DashboardSession } from '../../src/auth/sessions.ts';
import type { Viewer } from '../../src/ui/index.ts';

// What every file of page states shares: the fill of values someone outside controls, a state's
// shape, and a signed-in or signed-out viewer with a coffee roaster's data. (In a module of its
// own, so the state files and states.ts, which gathers them, do not import each other.)

/** A value someone outside controls: the realistic one here, or the test's. */
export interface Fill {
  (realistic: string): string;
  /** A URL that must stay one (a registered redirect URI): `start`, then the value in place of `realistic`. */
  after(start: string, realistic: string): string;
}

export const realistic: Fill = Object.assign((text: string) => text, { after: (start: string, text: string) => start + text });

export function filledWith(value: string): Fill {
  return Object.assign(() => value, { after: (start: string) => start + value });
}

export interface PageState {
  /** The page function the state renders; the every-page test checks each exported one has a state. */
  fn: (...args: never[]) => VNode;
  /** `<page>-<state>`: the test's name and the screenshot's file name. */
  name: string;
  /** What a person sees in this state, in a line (the screenshots' README lists it). */
  shows: string;
  /** A main page: screenshot also at 360px and in the dark theme. */
  main?: boolean;
  /** Shows nothing anyone outside typed (the every-page test has nothing to fill). */
  fixed?: boolean;
  render(v: Fill): { page: VNode; viewer: Viewer };
}

export const seconds = (iso: string) => Date.parse(iso) / 1000;

function session(v: Fill, email = 'maya@kestrelcoffee.example'): { session: DashboardSession; viewer: Viewer } {
  const csrfToken = v('Yb3kW0pQe7sN1vX9cR5tL2mJ8hF4dA6g');
  return { session: { personId: v('per_8Hc2LwQ5rT9mXz3vKp7NbY1d'), email: v(email), csrfToken, timeZone: 'UTC', signedInAt: new Date('2026-03-04T10:00:00Z') }, viewer: { csrfToken, timeZone: v('UTC'), nonce: 'Qd7mWz2Lp9Rx4Tn8Vc3BkH' } };
}

export const roaster = (v: Fill) => ({ id: v('biz_4fT9kQm2VxR7pLw3Zc8HnB1d'), name: v('Kestrel Coffee Roasters') });

/** What a state is: its page function, name, what it shows and whether it is a main page. */
export type About = Omit<PageState, 'render'>;

/** A page for a signed-in person: the owner, or `email`. */
export function signedIn(about: About, make: (v: Fill, s: DashboardSession) => VNode, email?: string): PageState {
  return { ...about, render: (v) => {
    const { session: s, viewer } = session(v, email);
    return { page: make(v, s), viewer };
  } };
}

export function signedOut(about: About, make: (v: Fill) => VNode): PageState {
  return { ...about, render: (v) => ({ page: make(v), viewer: { timeZone: v('UTC') } }) };
}

export const VIEWER = 'accounts@kestrelcoffee.example';
