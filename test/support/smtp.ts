import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { vi } from 'vitest';
import { startTestApp, type TestApp } from './harness.ts';

// A real SMTP server on loopback (smtp-server, nodemailer's sibling): it asks for a password,
// records every message it accepts, and refuses what the test tells it to, changeable mid-run.

export interface ReceivedMail {
  /** The envelope: who the server was told to deliver to. */
  to: string[];
  from: string;
  headers: Record<string, string>;
  subject: string;
  /** The text body, decoded as a mail client shows it. */
  text: string;
  /** The HTML alternative of a multipart message, decoded; undefined for a text-only message. */
  html?: string;
}

/** What the server answers to the next message: accept it, or refuse it with this reply. */
export type Refusal = { code: number; message: string } | null;

export interface SmtpPeer {
  port: number;
  user: string;
  password: string;
  /** SMTP_URL for the service (credentials included). */
  url: string;
  received: ReceivedMail[];
  /** Refuses the next `count` messages with `refusal` (at the end of DATA), then accepts again. */
  refuseNext(count: number, refusal: { code: number; message: string }): void;
  /** Refuses logins with this message (null: accept the right password again). */
  refuseLogins(message: string | null): void;
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i += 1) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Encoded words of a header (RFC 2047, as nodemailer writes them: B or Q, UTF-8). */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_all, kind: string, data: string) =>
    kind.toLowerCase() === 'b' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')));
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body)
    : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return text.replace(/\r\n/g, '\n').trimEnd();
}

/**
 * Reads a message as a mail client would: a text one, or multipart/alternative with a text and
 * an HTML part (what the service sends: 7bit, quoted-printable or base64). A MIME parser library
 * would be a dependency for this one helper.
 */
export function readMessage(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.slice(split + 4);
  const subject = decodeWords(headers.subject ?? '');
  const boundary = /^multipart\/[\w-]+;.*boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (boundary === undefined) return { headers, subject, text: decodeBody(headers, body) };
  const parts = body.split(`--${boundary}`).slice(1, -1).map((part) => readMessage(part.replace(/^\r\n/, '')));
  const of = (type: string) => parts.find((part) => (part.headers['content-type'] ?? '').toLowerCase().startsWith(type));
  const html = of('text/html')?.text;
  return { headers, subject, text: of('text/plain')?.text ?? '', ...(html === undefined ? {} : { html }) };
}

export async function startSmtpPeer(options: { user?: string; password?: string } = {}): Promise<SmtpPeer> {
  const user = options.user ?? 'mailer';
  const password = options.password ?? 'smtp-Pa55word:with/odd@chars';
  const received: ReceivedMail[] = [];
  let refusals: Array<{ code: number; message: string }> = [];
  let loginRefusal: string | null = null;
  const refuse = (refusal: { code: number; message: string }) => Object.assign(new Error(refusal.message), { responseCode: refusal.code });

  const server = new SMTPServer({
    logger: false,
    // Plain SMTP on loopback: no STARTTLS (its built-in certificate is for show), login allowed without it.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (loginRefusal !== null) return callback(Object.assign(new Error(loginRefusal), { responseCode: 535 }));
      if (auth.username !== user || auth.password !== password) return callback(new Error('Invalid username or password'));
      callback(null, { user });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refusal = refusals.shift();
        if (refusal) return callback(refuse(refusal));
        const message = readMessage(Buffer.concat(chunks).toString('utf8'));
        received.push({
          ...message,
          to: session.envelope.rcptTo.map((address) => address.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        });
        callback(null);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    user,
    password,
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    received,
    refuseNext(count, refusal) {
      refusals = Array.from({ length: count }, () => refusal);
    },
    refuseLogins(message) {
      loginRefusal = message;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Ticks pg-boss's clock (its workers poll as it moves) until `check` passes: mail sent by the workers. */
export async function untilTicked<T>(t: TestApp, check: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(async () => {
    try {
      return await check();
    } catch (error) {
      await t.tick(2_000);
      throw error;
    }
  }, { timeout: 10_000, interval: 20 });
}

/**
 * An app that mails for real: an SMTP peer on loopback, and the app with its workers on real time
 * (the CLI, a process of its own, queues mail jobs on the system clock), for files that read mail.
 */
export async function startMailingApp(): Promise<{ t: TestApp; smtp: SmtpPeer; close(): Promise<void> }> {
  const smtp = await startSmtpPeer();
  const t = await startTestApp({ RATE_LIMITS: 'off', SMTP_URL: smtp.url }, { workers: true, clockStart: Date.now() });
  return { t, smtp, close: async () => { await t.close(); await smtp.close(); } };
}
