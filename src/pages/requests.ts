import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { ApiError } from '../core/errors.ts';
import { randomBase62 } from '../core/ids.ts';
import type { Form } from '../core/form.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { CSRF_FIELD } from '../ui/index.ts';
import type { AppContext } from '../verbs/context.ts';
import type { Messages } from './messages/en.ts';
import type { StartedFor } from './starts.ts';

// What the payer pages' handlers share: a form token bound to the page and the browser, and the
// values of a posted form. There is no session: the payment's address is the buyer's capability.

/** The cookie holding this browser's nonce for payer forms (SameSite=Lax: a cross-site post does not carry it). */
const NONCE_COOKIE = 'ps_payer';
/** The field the ui's Form writes the token into (its CSRF field). */
export const TOKEN_FIELD = CSRF_FIELD;

/** Thrown for a form whose token is missing or not for this page and browser. */
export class StalePayerForm extends Error {}

export interface PayerRequest {
  t: Messages;
  nonce: string;
}

export interface PayerPages {
  context: AppContext;
  forms: PayerForms;
  /** Counts one start posted by this request's visitor for the payment's business and mode (pages/starts.ts), or refuses it. */
  admitStart(request: FastifyRequest, payment: StartedFor): void;
  /** The buyer's language and this response's nonce. */
  of(request: FastifyRequest): PayerRequest;
  /** Renders a page for this request (with the form token of the page, when it has forms) and sends it. */
  send(request: FastifyRequest, reply: FastifyReply, status: number, page: VNode, token?: string): FastifyReply;
  /**
   * Sends a page (200) rendered once per `key` and language and kept: the key is a text naming
   * everything `make` reads (the whole view, the step), such as their JSON.
   */
  sendKept(request: FastifyRequest, reply: FastifyReply, key: string, make: () => VNode, token?: string): FastifyReply;
}

export class PayerForms {
  readonly #secrets: SecretBox;
  readonly #secure: boolean;

  constructor(secrets: SecretBox, secure: boolean) {
    this.#secrets = secrets;
    this.#secure = secure;
  }

  /** The token for forms on this page (`scope`: the payment id or checkout slug), setting the browser's nonce when it has none. */
  tokenFor(request: FastifyRequest, reply: FastifyReply, scope: string): string {
    let nonce = request.cookies[NONCE_COOKIE];
    if (!nonce || !/^[\w-]{22}$/.test(nonce)) {
      nonce = randomBase62(22);
      reply.setCookie(NONCE_COOKIE, nonce, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.#secure });
    }
    return this.#secrets.tag('payer-form', `${scope}:${nonce}`);
  }

  /** This browser's nonce, after check() found it: what tells one visitor's browser from another's. */
  browserOf(request: FastifyRequest): string {
    return request.cookies[NONCE_COOKIE] ?? '';
  }

  /** The posted form, after its token is checked against this page and this browser's nonce (constant time). */
  check(request: FastifyRequest, scope: string): Form {
    const form = (request.body ?? {}) as Form;
    const nonce = request.cookies[NONCE_COOKIE];
    const given = form[TOKEN_FIELD];
    if (!nonce || typeof given !== 'string') throw new StalePayerForm();
    const expected = Buffer.from(this.#secrets.tag('payer-form', `${scope}:${nonce}`));
    const actual = Buffer.from(given);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw new StalePayerForm();
    return form;
  }
}

/** A form's single values (a field sent twice is refused as not text). */
export function formValues(form: Form): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(form)) {
    if (name === TOKEN_FIELD) continue;
    if (typeof value !== 'string') throw new ApiError('invalid_request', `${name} was sent more than once.`);
    values[name] = value;
  }
  return values;
}
