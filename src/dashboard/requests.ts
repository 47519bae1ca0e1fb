import type { FastifyReply, FastifyRequest } from 'fastify';
import { personPrincipal, sessionIn } from '../auth/people.ts';
import { hashSecret } from '../auth/secret-keys.ts';
import { csrfMatches, findSession, type DashboardSession } from '../auth/sessions.ts';
import { onAuthChange } from '../db/auth-changes.ts';
import { ApiError } from '../core/errors.ts';
import type { Form } from '../core/form.ts';
import type { AccountStatus, Role } from '../db/schema.ts';
import type { AppContext, OperationContext } from '../verbs/context.ts';

// What every dashboard handler starts from: the signed-in person (or a redirect to sign in), a
// form's CSRF token checked, and the principal of the business and mode named by the URL. A
// business that is not the person's is not_found, exactly as another business's object is.

export type Mode = 'test' | 'live';

/** A signed-in person acting in one business and mode: the verbs' context, and what pages show. */
export interface PersonContext extends OperationContext {
  session: DashboardSession;
  mode: Mode;
}

/** Thrown to send the browser elsewhere (sign in first, or after a form). */
export class Redirect {
  readonly location: string;
  constructor(location: string) {
    this.location = location;
  }
}

/** The refusal of a form whose session ended or whose CSRF token does not match. */
export class StaleForm extends Error {}

function modeOf(value: unknown): Mode {
  if (value === 'test' || value === 'live') return value;
  throw new ApiError('not_found', 'There is no such page.');
}

/** How long a page's session, membership and business are kept (any change to them forgets them at once). */
const KEPT_MS = 5_000;
const KEPT_MAX = 10_000;

interface Kept {
  found: { session: DashboardSession; principal: PersonContext['principal'] };
  until: number;
  expiresAt: number;
}

export class DashboardRequests {
  readonly #context: AppContext;
  readonly #cookieName: string;
  /**
   * Pages' sessions in their business and mode, kept as verified keys are: a few seconds, only
   * while change notices arrive, and forgotten on any change to sessions, people, memberships or
   * businesses (in this process at once, from others through NOTIFY: migrations 0002 and 0020).
   */
  #kept = new Map<string, Kept>();

  constructor(context: AppContext, cookieName: string) {
    this.#context = context;
    this.#cookieName = cookieName;
    onAuthChange(() => {
      this.#kept = new Map();
    });
  }

  session(request: FastifyRequest): Promise<DashboardSession | undefined> {
    return findSession(this.#context, request.cookies[this.#cookieName]);
  }

  /** The signed-in person; otherwise the browser goes to sign in, then comes back here. */
  async signedIn(request: FastifyRequest): Promise<DashboardSession> {
    const session = await this.session(request);
    if (!session) throw new Redirect(`/dashboard/sign-in?next=${encodeURIComponent(request.url)}`);
    return session;
  }

  /**
   * The person behind a posted form, with the form's CSRF token checked (constant time). The
   * plugin checks every POST this way before its handler runs; the handler gets the same answer.
   */
  posted(request: FastifyRequest): Promise<{ session: DashboardSession; form: Form }> {
    let checked = this.#posted.get(request);
    if (!checked) {
      checked = this.#checkForm(request);
      this.#posted.set(request, checked);
    }
    return checked;
  }

  readonly #posted = new WeakMap<FastifyRequest, Promise<{ session: DashboardSession; form: Form }>>();

  async #checkForm(request: FastifyRequest): Promise<{ session: DashboardSession; form: Form }> {
    const session = await this.session(request);
    const form = (request.body ?? {}) as Form;
    if (!session || !csrfMatches(session.csrfToken, form.csrf)) throw new StaleForm('Your session has ended or the form is stale.');
    return { session, form };
  }

  /** The person acting in the business (and mode) the URL names. */
  async acting(session: DashboardSession, params: { business?: string; mode?: string }): Promise<PersonContext> {
    const mode = modeOf(params.mode);
    const principal = await personPrincipal(this.#context.db, session, params.business ?? '', mode === 'live');
    return { ...this.#context, principal, session, mode };
  }

  /** A page in a business: signed in and acting there (one query). */
  async page(request: FastifyRequest): Promise<PersonContext> {
    const params = request.params as { business?: string; mode?: string };
    const mode = modeOf(params.mode);
    const sessionId = request.cookies[this.#cookieName];
    const businessId = params.business ?? '';
    const now = this.#context.clock.now().getTime();
    const key = sessionId ? `${hashSecret(sessionId).toString('base64')} ${mode} ${businessId}` : undefined;
    const kept = key === undefined ? undefined : this.#kept.get(key);
    if (kept && kept.until > now && kept.expiresAt > now && this.#context.authChanges.listening) {
      return { ...this.#context, principal: kept.found.principal, session: kept.found.session, mode };
    }
    const map = this.#kept;
    const found = await sessionIn(this.#context, sessionId, businessId, mode === 'live');
    if (!found) throw new Redirect(`/dashboard/sign-in?next=${encodeURIComponent(request.url)}`);
    // Kept only in the map this read began with: a change announced meanwhile replaced it.
    if (key !== undefined && map === this.#kept) {
      if (map.size >= KEPT_MAX) map.clear();
      map.set(key, { found: { session: found.session, principal: found.principal }, until: now + KEPT_MS, expiresAt: found.expiresAt.getTime() });
    }
    return { ...this.#context, principal: found.principal, session: found.session, mode };
  }

  /** A form in a business: CSRF checked, then acting there. */
  async form(request: FastifyRequest): Promise<{ ctx: PersonContext; form: Form }> {
    const { session, form } = await this.posted(request);
    return { ctx: await this.acting(session, request.params as { business?: string; mode?: string }), form };
  }
}

/** What a page of a business shows around its content: the person, the business, the mode. */
export function frameOf(ctx: PersonContext): { session: DashboardSession; business: { id: string; name: string; status: AccountStatus }; mode: Mode; role: Role } {
  const { business } = ctx.principal;
  return { session: ctx.session, business: { id: ctx.principal.businessId, name: business.name, status: business.status }, mode: ctx.mode, role: roleOf(ctx) };
}

/** The person's role, for a page to offer what it allows (the action decides anyway). */
export function roleOf(ctx: PersonContext): Role {
  return ctx.principal.actor.kind === 'person' ? ctx.principal.actor.role : 'viewer';
}

/** After a form: see the page again (POST, redirect, GET). */
export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.redirect(location, 303);
}
