import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORM_CONTENT_TYPE, formBodyParser, type Form } from '../core/form.ts';
import type { AppContext } from '../verbs/context.ts';
import { READ_ONLY_SCOPES } from '../auth/scopes.ts';
import { APPROVE_PATH, decide, disconnect, pendingRequest } from '../agents/authorization.ts';
import { hasControlCharacters } from '../core/validation.ts';
import { OAuthError } from '../agents/errors.ts';
import { escapeHtml, hidden, page } from '../core/html.ts';
import { createSecretKey, listSecretKeys, revokeSecretKey } from '../resources/api-keys/admin.ts';
import { scopesForKey } from '../auth/scopes.ts';
import { RefusedError } from '../core/errors.ts';
import { canManageKeys, listMembers, ROLES, setMember } from '../tenancy/businesses.ts';
import type { Role } from '../db/schema.ts';
import { OIDC_START_PATH, OidcRefusal, registerOidcSignIn } from './oidc.ts';
import { safeNext, closeSession, cookieOptions, openSession, csrfMatches, findSession, SESSION_TTL_MS, sessionCookieName, useSignInLink, type DashboardSession } from '../auth/sessions.ts';

// The dashboard, server-rendered: sign-in (single-use links from the CLI), the approval of agents'
// sign-in requests, and each business's connected agents. Every form carries the session's CSRF
// token; pages may not be framed; nothing here runs script.

/** The links of one business's pages. */
function businessNav(id: string, name: string): string {
  const base = `/dashboard/businesses/${encodeURIComponent(id)}`;
  return `<p class="note">${escapeHtml(name)}: <a href="${base}/agents">Connected agents</a> · <a href="${base}/keys">API keys</a> · <a href="${base}/team">Team</a></p>`;
}

const SIGN_IN_NONCE_COOKIE = 'ps_sign_in';



function one(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' ? value : undefined;
}


function html(reply: FastifyReply, status: number, title: string, body: string, session?: DashboardSession): FastifyReply {
  const nav = session
    ? `<nav><a href="/dashboard">Businesses</a><form method="post" action="/dashboard/sign-out" style="display:inline">${hidden('csrf', session.csrfToken)}<button>Sign out ${escapeHtml(session.email)}</button></form></nav>`
    : '';
  return reply.code(status).type('text/html; charset=utf-8').send(page(title, body, nav));
}

const SCOPE_WORDS: Record<string, string> = {
  'payments:read': 'read payments, payment links, checkouts and checkout sessions',
  'checkouts:write': 'create payment links, checkouts and checkout sessions, and simulate Test payments',
  'orders:read': 'read orders',
  'orders:write': 'update orders and report cancellations and refunds',
  'customers:read': 'read customers',
};

export async function dashboard(scope: FastifyInstance, options: { context: AppContext }): Promise<void> {
  const { context } = options;
  const { baseUrl } = context.config;
  const cookieName = sessionCookieName(baseUrl);
  const origin = new URL(baseUrl).origin;

  await scope.register(cookie);
  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string' }, formBodyParser);
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'");
    reply.header('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on our own forms.
    reply.header('Referrer-Policy', 'same-origin');
    return payload;
  });
  // Text that cannot be stored (NUL, other control characters) is a bad request, never a 500.
  scope.addHook('preHandler', async (request, reply) => {
    if (hasControlCharacters(request.params) || hasControlCharacters(request.query) || hasControlCharacters(request.body)) {
      return html(reply, 400, 'Bad request', '<h1>Bad request</h1><p>The request has characters that are not text.</p>');
    }
  });
  // A form posted from another site is refused before anything else (CSRF tokens check every
  // form too; an opaque `null` origin is left to them).
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const from = request.headers.origin;
    if (from !== undefined && from !== 'null' && from !== origin) return html(reply, 403, 'Refused', '<h1>Refused</h1><p>This form was sent from another site.</p>');
  });
  scope.setErrorHandler((error, request, reply) => {
    if (error instanceof OAuthError || error instanceof RefusedError || error instanceof OidcRefusal) return html(reply, 400, 'Cannot continue', `<h1>Cannot continue</h1><p>${escapeHtml(error.message)}</p><p><a href="/dashboard">Back</a></p>`);
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return html(reply, status, 'Bad request', '<h1>Bad request</h1><p>The request could not be read.</p>');
    request.log.error({ err: error }, 'dashboard request failed');
    return html(reply, 500, 'Error', '<h1>Something went wrong</h1><p>Please try again.</p>');
  });

  const sessionOf = (request: FastifyRequest) => findSession(context, request.cookies[cookieName]);
  /** The signed-in person, or a redirect to sign in (then back here). */
  const requireSession = async (request: FastifyRequest, reply: FastifyReply): Promise<DashboardSession | undefined> => {
    const session = await sessionOf(request);
    if (!session) {
      void reply.redirect(`/dashboard/sign-in?next=${encodeURIComponent(request.url)}`, 303);
      return undefined;
    }
    return session;
  };
  /** The session behind a form, with its CSRF token checked. */
  const requireForm = async (request: FastifyRequest, reply: FastifyReply): Promise<{ session: DashboardSession; form: Form } | undefined> => {
    const session = await sessionOf(request);
    const form = (request.body ?? {}) as Form;
    if (!session || !csrfMatches(session.csrfToken, form.csrf)) {
      void html(reply, 403, 'Refused', '<h1>Refused</h1><p>Your session has ended or the form is stale. <a href="/dashboard">Start again</a>.</p>');
      return undefined;
    }
    return { session, form };
  };

  scope.get('/dashboard/sign-in', async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
    const oidc = context.config.oidc;
    return html(reply, 200, 'Sign in', `<h1>Sign in</h1>
${oidc ? `<p><a href="${OIDC_START_PATH}?next=${encodeURIComponent(next)}">Sign in with ${escapeHtml(oidc.name)}</a></p><p>Or:</p>` : ''}
<p>Ask your operator for a sign-in link, or make one on the server:</p>
<p><code>npm run --silent cli -- login-link --email you@example.com</code></p>
<p class="note">After signing in you will come back to <code>${escapeHtml(next)}</code>.</p>`);
  });

  // The link only shows a button: mail scanners that open links must not use them up.
  scope.get('/dashboard/sign-in/link', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const nonce = randomBytes(16).toString('base64url');
    reply.setCookie(SIGN_IN_NONCE_COOKIE, nonce, cookieOptions(baseUrl, 15 * 60));
    return html(reply, 200, 'Sign in', `<h1>Sign in to the dashboard</h1>
<form method="post" action="/dashboard/sign-in/link">${hidden('token', typeof query.token === 'string' ? query.token : '')}${hidden('nonce', nonce)}${hidden('next', safeNext(query.next))}
<button>Continue</button></form>`);
  });

  scope.post('/dashboard/sign-in/link', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!csrfMatches(request.cookies[SIGN_IN_NONCE_COOKIE] ?? '', form.nonce) || !request.cookies[SIGN_IN_NONCE_COOKIE]) {
      return html(reply, 403, 'Refused', '<h1>Refused</h1><p>Open the sign-in link again.</p>');
    }
    const id = await useSignInLink(context, one(form, 'token') ?? '');
    if (!id) return html(reply, 400, 'Link not valid', '<h1>This sign-in link is not valid</h1><p>It was used already or has expired. Ask for a new one.</p>');
    reply.clearCookie(SIGN_IN_NONCE_COOKIE, cookieOptions(baseUrl, 0));
    reply.setCookie(cookieName, id, cookieOptions(baseUrl, SESSION_TTL_MS / 1000));
    return reply.redirect(safeNext(one(form, 'next')), 303);
  });

  await registerOidcSignIn(scope, context, {
    safeNext,
    async signedIn(reply, personId, next) {
      reply.setCookie(cookieName, await openSession(context, personId), cookieOptions(baseUrl, SESSION_TTL_MS / 1000));
      return reply.redirect(next, 303);
    },
  });

  scope.post('/dashboard/sign-out', async (request, reply) => {
    const checked = await requireForm(request, reply);
    if (!checked) return reply;
    await closeSession(context, request.cookies[cookieName]);
    // Cleared with the attributes it was set with: browsers ignore a __Host- cookie cleared without Secure.
    reply.clearCookie(cookieName, cookieOptions(baseUrl, 0));
    return reply.redirect('/dashboard/sign-in', 303);
  });

  scope.get('/dashboard', async (request, reply) => {
    const session = await requireSession(request, reply);
    if (!session) return reply;
    const businesses = await context.db.selectFrom('memberships as m').innerJoin('businesses as b', 'b.id', 'm.business_id')
      .select(['b.id', 'b.name', 'm.role']).where('m.person_id', '=', session.personId).orderBy('b.name').execute();
    const rows = businesses.map((b) => `<tr><td>${escapeHtml(b.name)}</td><td>${escapeHtml(b.role)}</td><td>${businessNav(b.id, b.name)}</td></tr>`).join('');
    return html(reply, 200, 'Businesses', `<h1>Your businesses</h1><table><tr><th>Business</th><th>Role</th><th></th></tr>${rows}</table>`, session);
  }

  );

  scope.get(APPROVE_PATH, async (request, reply) => {
    const session = await requireSession(request, reply);
    if (!session) return reply;
    const requestId = String((request.query as Record<string, unknown>).request ?? '');
    const found = await pendingRequest(context, requestId);
    if (!found) return html(reply, 400, 'Request expired', '<h1>This sign-in request has expired</h1><p>Start again from the agent.</p>', session);
    const { request: pending, client } = found;
    const businesses = await context.db.selectFrom('memberships as m').innerJoin('businesses as b', 'b.id', 'm.business_id')
      .select(['b.id', 'b.name']).where('m.person_id', '=', session.personId).where('m.role', 'in', ['owner', 'developer']).orderBy('b.name').execute();
    // An app's own scheme says nothing about where it runs: show it whole, as an app on the device.
    const target = new URL(pending.redirect_uri);
    const redirectHost = target.protocol === 'https:' || target.protocol === 'http:' ? target.host : `${pending.redirect_uri} (an application on this device)`;
    const asks = pending.scopes.map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope] ?? scope)} <span class="note">(${escapeHtml(scope)})</span></li>`).join('');
    const readOnly = pending.scopes.filter((scope) => (READ_ONLY_SCOPES as readonly string[]).includes(scope));
    const intro = `<h1>Connect an agent?</h1>
<p><strong>${escapeHtml(client.client_name ?? client.client_id)}</strong> <span class="warn">(unverified: the name is what the application says about itself)</span> wants to act for one of your businesses.</p>
<p>It will receive the answer at <code>${escapeHtml(redirectHost)}</code>${client.kind === 'metadata_document' ? `, and is described at <code>${escapeHtml(client.client_id)}</code>` : ''}.</p>
<p>It asks to:</p><ul>${asks}</ul><p class="note">For: ${escapeHtml(pending.resource)}</p>`;
    if (businesses.length === 0) {
      return html(reply, 200, 'Connect an agent', `${intro}<p>You do not manage keys in any business, so you cannot connect agents.</p>
<form method="post" action="${APPROVE_PATH}">${hidden('csrf', session.csrfToken)}${hidden('request', requestId)}<button name="decision" value="deny">Deny</button></form>`, session);
    }
    const options = businesses.map((b) => `<option value="${escapeHtml(b.id)}">${escapeHtml(b.name)}</option>`).join('');
    return html(reply, 200, 'Connect an agent', `${intro}
<form method="post" action="${APPROVE_PATH}">${hidden('csrf', session.csrfToken)}${hidden('request', requestId)}
<fieldset><legend>Business</legend><select name="business">${options}</select></fieldset>
<fieldset><legend>Mode</legend><label><input type="radio" name="mode" value="test" checked> Test</label> <label><input type="radio" name="mode" value="live"> Live (real money)</label></fieldset>
<fieldset><legend>Access</legend><label><input type="radio" name="access" value="full" checked> Full access</label>
<label><input type="radio" name="access" value="read_only"> Read only${readOnly.length === 0 ? ' (grants nothing this agent asked for)' : ''}</label></fieldset>
<button name="decision" value="approve">Approve</button><button name="decision" value="deny">Deny</button></form>`, session);
  });

  scope.post(APPROVE_PATH, async (request, reply) => {
    const checked = await requireForm(request, reply);
    if (!checked) return reply;
    const { session, form } = checked;
    const approve = one(form, 'decision') === 'approve';
    const mode = one(form, 'mode');
    const access = one(form, 'access');
    if (approve && ((mode !== 'test' && mode !== 'live') || (access !== 'full' && access !== 'read_only') || !one(form, 'business'))) {
      return html(reply, 400, 'Choose', '<h1>Choose a business, a mode and an access level</h1>', session);
    }
    const target = await decide(context, one(form, 'request') ?? '', {
      personId: session.personId, approve, businessId: one(form, 'business'), livemode: mode === 'live', access: access as 'full' | 'read_only' | undefined,
    });
    return reply.redirect(target.href, 303);
  });

  /** The person's role in a business, with its name; undefined when not a member. */
  const membershipOf = (businessId: string, personId: string) => context.db.selectFrom('memberships as m').innerJoin('businesses as b', 'b.id', 'm.business_id')
    .select(['m.role', 'b.name']).where('m.business_id', '=', businessId).where('m.person_id', '=', personId).executeTakeFirst();

  scope.get('/dashboard/businesses/:id/agents', async (request, reply) => {
    const session = await requireSession(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const membership = await membershipOf(id, session.personId);
    if (!membership) return html(reply, 404, 'Not found', '<h1>Not found</h1>', session);
    const manages = canManageKeys(membership.role);
    const connections = await context.db.selectFrom('agent_connections as c').innerJoin('people as p', 'p.id', 'c.approved_by')
      .select(['c.id', 'c.client_name', 'c.client_id', 'c.livemode', 'c.access', 'c.created_at', 'c.last_used_at', 'c.disconnected_at', 'p.email'])
      .where('c.business_id', '=', id).orderBy('c.created_at', 'desc').limit(200).execute();
    const when = (date: Date | null) => (date ? escapeHtml(date.toISOString().replace('T', ' ').slice(0, 16)) : '-');
    const rows = connections.map((c) => `<tr><td>${escapeHtml(c.client_name ?? c.client_id)}</td><td>${c.livemode ? 'Live' : 'Test'}</td>
<td>${c.access === 'full' ? 'Full access' : 'Read only'}</td><td>${escapeHtml(c.email)}, ${when(c.created_at)}</td><td>${when(c.last_used_at)}</td>
<td>${c.disconnected_at ? `Disconnected ${when(c.disconnected_at)}` : manages
  ? `<form method="post" action="/dashboard/businesses/${encodeURIComponent(id)}/agents/${encodeURIComponent(c.id)}/disconnect">${hidden('csrf', session.csrfToken)}<button>Disconnect</button></form>` : 'Connected'}</td></tr>`).join('');
    return html(reply, 200, 'Connected agents', `<h1>${escapeHtml(membership.name)}: connected agents</h1>${businessNav(id, membership.name)}
<table><tr><th>Agent</th><th>Mode</th><th>Access</th><th>Approved by</th><th>Last used</th><th></th></tr>${rows || '<tr><td colspan="6">None yet.</td></tr>'}</table>`, session);
  });

  const keysPage = async (reply: FastifyReply, session: DashboardSession, id: string, shown?: { secret: string; name: string }) => {
    const membership = await membershipOf(id, session.personId);
    if (!membership) return html(reply, 404, 'Not found', '<h1>Not found</h1>', session);
    const manages = canManageKeys(membership.role);
    const keys = await listSecretKeys(context.db, id);
    const when = (date: Date | null) => (date ? escapeHtml(date.toISOString().replace('T', ' ').slice(0, 16)) : '-');
    const rows = keys.map((key) => `<tr><td>${escapeHtml(key.name ?? '')}</td><td><code>${escapeHtml(key.secret_hint)}</code></td><td>${key.livemode ? 'Live' : 'Test'}</td>
<td>${key.access === 'full' ? 'Full access' : 'Read only'}${key.kind === 'api' ? '' : ` (${escapeHtml(key.kind)})`}<br><span class="note">${escapeHtml(scopesForKey(key.kind, key.access).join(' '))}</span></td>
<td>${when(key.created_at)}</td><td>${when(key.last_used_at)}</td><td>${key.revoked_at ? `Revoked ${when(key.revoked_at)}` : manages
  ? `<form method="post" action="/dashboard/businesses/${encodeURIComponent(id)}/keys/${encodeURIComponent(key.id)}/revoke">${hidden('csrf', session.csrfToken)}<button>Revoke</button></form>` : 'Active'}</td></tr>`).join('');
    const secret = shown ? `<p class="warn">The new key${shown.name ? ` “${escapeHtml(shown.name)}”` : ''} is shown this once; copy it now:</p><p><code>${escapeHtml(shown.secret)}</code></p>` : '';
    const form = manages ? `<h2>Create a key</h2><form method="post" action="/dashboard/businesses/${encodeURIComponent(id)}/keys">${hidden('csrf', session.csrfToken)}
<label>Name <input name="name" maxlength="80"></label>
<fieldset><legend>Mode</legend><label><input type="radio" name="mode" value="test" checked> Test</label> <label><input type="radio" name="mode" value="live"> Live</label></fieldset>
<fieldset><legend>Access</legend><label><input type="radio" name="access" value="full" checked> Full access</label> <label><input type="radio" name="access" value="read_only"> Read only</label></fieldset>
<button>Create key</button></form>` : '<p class="note">Only owners and developers manage keys.</p>';
    return html(reply, 200, 'API keys', `<h1>${escapeHtml(membership.name)}: API keys</h1>${businessNav(id, membership.name)}${secret}
<table><tr><th>Name</th><th>Key</th><th>Mode</th><th>Access</th><th>Created</th><th>Last used</th><th></th></tr>${rows || '<tr><td colspan="7">None yet.</td></tr>'}</table>${form}`, session);
  };

  scope.get('/dashboard/businesses/:id/keys', async (request, reply) => {
    const session = await requireSession(request, reply);
    if (!session) return reply;
    return keysPage(reply, session, (request.params as { id: string }).id);
  });

  scope.post('/dashboard/businesses/:id/keys', async (request, reply) => {
    const checked = await requireForm(request, reply);
    if (!checked) return reply;
    const { id } = request.params as { id: string };
    const membership = await membershipOf(id, checked.session.personId);
    if (!membership || !canManageKeys(membership.role)) return html(reply, 404, 'Not found', '<h1>Not found</h1>', checked.session);
    const mode = one(checked.form, 'mode');
    const access = one(checked.form, 'access');
    const name = (one(checked.form, 'name') ?? '').trim().slice(0, 80);
    if ((mode !== 'test' && mode !== 'live') || (access !== 'full' && access !== 'read_only')) return html(reply, 400, 'Choose', '<h1>Choose a mode and an access level</h1>', checked.session);
    const { secret } = await createSecretKey(context.db, context.clock, { businessId: id, livemode: mode === 'live', access, name: name || null, createdBy: checked.session.personId });
    // The secret is in this response only (never stored, never in a URL).
    return keysPage(reply, checked.session, id, { secret, name });
  });

  scope.post('/dashboard/businesses/:id/keys/:key/revoke', async (request, reply) => {
    const checked = await requireForm(request, reply);
    if (!checked) return reply;
    const { id, key } = request.params as { id: string; key: string };
    const membership = await membershipOf(id, checked.session.personId);
    const row = await context.db.selectFrom('api_keys').select('id').where('id', '=', key).where('business_id', '=', id).executeTakeFirst();
    if (!row || !membership || !canManageKeys(membership.role)) return html(reply, 404, 'Not found', '<h1>Not found</h1>', checked.session);
    await revokeSecretKey(context.db, context.clock, key);
    return reply.redirect(`/dashboard/businesses/${encodeURIComponent(id)}/keys`, 303);
  });

  scope.get('/dashboard/businesses/:id/team', async (request, reply) => {
    const session = await requireSession(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const membership = await membershipOf(id, session.personId);
    if (!membership) return html(reply, 404, 'Not found', '<h1>Not found</h1>', session);
    const members = await listMembers(context.db, id);
    const rows = members.map((m) => `<tr><td>${escapeHtml(m.email)}</td><td>${escapeHtml(m.role)}</td><td>${canManageKeys(m.role) ? 'Manages keys and agents' : ''}</td></tr>`).join('');
    const options = ROLES.map((role) => `<option value="${role}">${role}</option>`).join('');
    const form = membership.role === 'owner' ? `<h2>Add a person or change a role</h2><form method="post" action="/dashboard/businesses/${encodeURIComponent(id)}/team">${hidden('csrf', session.csrfToken)}
<label>Email <input name="email" type="email" required></label> <label>Role <select name="role">${options}</select></label> <button>Save</button></form>
<p class="note">Owners and developers manage keys and connect agents. Taking that away disconnects the agents the person approved.</p>` : '<p class="note">Only owners change roles.</p>';
    return html(reply, 200, 'Team', `<h1>${escapeHtml(membership.name)}: team</h1>${businessNav(id, membership.name)}<table><tr><th>Person</th><th>Role</th><th></th></tr>${rows}</table>${form}`, session);
  });

  scope.post('/dashboard/businesses/:id/team', async (request, reply) => {
    const checked = await requireForm(request, reply);
    if (!checked) return reply;
    const { id } = request.params as { id: string };
    const membership = await membershipOf(id, checked.session.personId);
    if (!membership || membership.role !== 'owner') return html(reply, 404, 'Not found', '<h1>Not found</h1>', checked.session);
    const role = one(checked.form, 'role');
    if (!ROLES.includes(role as Role)) return html(reply, 400, 'Choose', '<h1>Choose a role</h1>', checked.session);
    await setMember(context.db, context.clock, { businessId: id, email: (one(checked.form, 'email') ?? '').trim(), role: role as Role });
    return reply.redirect(`/dashboard/businesses/${encodeURIComponent(id)}/team`, 303);
  });

  scope.post('/dashboard/businesses/:id/agents/:connection/disconnect', async (request, reply) => {
    const checked = await requireForm(request, reply);
    if (!checked) return reply;
    const { id, connection } = request.params as { id: string; connection: string };
    const membership = await membershipOf(id, checked.session.personId);
    const row = await context.db.selectFrom('agent_connections').select(['id', 'business_id', 'livemode']).where('id', '=', connection).where('business_id', '=', id).executeTakeFirst();
    if (!row || !canManageKeys(membership?.role)) return html(reply, 404, 'Not found', '<h1>Not found</h1>', checked.session);
    await disconnect(context, row, 'disconnected_in_dashboard', `person:${checked.session.personId}`);
    return reply.redirect(`/dashboard/businesses/${encodeURIComponent(id)}/agents`, 303);
  });
}
