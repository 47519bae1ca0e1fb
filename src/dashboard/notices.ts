import type { FastifyRequest } from 'fastify';
import { leaveNotice, takeNotice } from '../auth/notices.ts';
import { sessionCookieName } from '../auth/sessions.ts';
import type { Role } from '../db/schema.ts';
import type { PersonContext } from './requests.ts';

// What a form tells the page its redirect opens (POST, 303, GET; auth/notices.ts): left for this
// browser's session and that page of the business and mode, taken by the page's next GET.

/** What each page may be told, by area. */
export interface PageNotices {
  /** A new key: its secret is shown this once. */
  keys: { secret: string; name: string | null };
  /** A person added, or their role changed. */
  team: { email: string; role: Role };
  /**
   * A webhook endpoint's signing secret, shown this once on its page: just added, or rolled
   * (`previous_until`: until when the previous one also signs, Unix seconds; null: it stopped).
   */
  webhooks: { endpoint: string; secret: string; rolled: boolean; previous_until: number | null };
}
type Area = keyof PageNotices;

function sessionOf(request: FastifyRequest, ctx: PersonContext): string {
  const id = request.cookies[sessionCookieName(ctx.config.baseUrl)];
  // The person was found by this cookie a moment ago; without it there is no one to tell.
  if (id === undefined) throw new Error('A dashboard notice needs the session it belongs to.');
  return id;
}

function placeOf(ctx: PersonContext, area: Area): string {
  return `${ctx.principal.businessId}/${ctx.mode}/${area}`;
}

/** Leaves `notice` for the next page of `area` this session opens (the form's redirect). */
export function noticeForPage<A extends Area>(request: FastifyRequest, ctx: PersonContext, area: A, notice: PageNotices[A]): Promise<void> {
  return leaveNotice(ctx, sessionOf(request, ctx), placeOf(ctx, area), notice);
}

/** The notice a form left for this page, once (sealed by us, so it has the shape it was left with). */
export async function noticeOfPage<A extends Area>(request: FastifyRequest, ctx: PersonContext, area: A): Promise<PageNotices[A] | undefined> {
  return (await takeNotice(ctx, sessionOf(request, ctx), placeOf(ctx, area))) as PageNotices[A] | undefined;
}
