import { createTransport } from 'nodemailer';
import type { MailConfig } from '../core/config.ts';
import type { Secret } from '../core/secret.ts';

// Sending one message over SMTP with nodemailer (SMTP_URL: host, port, TLS and credentials, in
// nodemailer's URL form). A failure becomes a MailFailure whose text is ours, built from the
// server's reply, with the password taken out wherever it might appear: nothing the service
// logs or stores about a send can carry it.

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text`: the message goes as multipart/alternative. */
  html?: string;
}

export class MailFailure extends Error {
  /** The server refused the message for good (a 5xx reply to it): sending it again would be refused again. */
  readonly permanent: boolean;

  constructor(message: string, permanent: boolean) {
    super(message);
    this.name = 'MailFailure';
    this.permanent = permanent;
  }
}

interface NodemailerError {
  code?: string;
  responseCode?: number;
  response?: string;
  permanent?: boolean;
  message?: string;
}

/** The forms a password takes on the wire and in text: as written, URL-encoded, base64 (AUTH LOGIN). */
function passwordForms(smtpUrl: Secret): string[] {
  const encoded = new URL(smtpUrl.reveal()).password;
  if (encoded === '') return [];
  const plain = decodeURIComponent(encoded);
  return [...new Set([plain, encoded, Buffer.from(plain).toString('base64')])].filter((form) => form.length >= 3);
}

export class SmtpMailer {
  readonly #transport: ReturnType<typeof createTransport>;
  readonly #from: string;
  readonly #hidden: string[];

  constructor(config: MailConfig & { smtpUrl: Secret }) {
    this.#from = config.from;
    this.#hidden = passwordForms(config.smtpUrl);
    // One connection per message (mail is a few messages an hour); each wait bounded, so a job
    // never outlives its 180-second expiry.
    this.#transport = createTransport({
      url: config.smtpUrl.reveal(),
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
      logger: false,
      debug: false,
    });
  }

  async send(mail: OutgoingMail): Promise<void> {
    try {
      await this.#transport.sendMail({ from: this.#from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html === undefined ? {} : { html: mail.html }) });
    } catch (error) {
      throw this.#failure(error as NodemailerError);
    }
  }

  #failure(error: NodemailerError): MailFailure {
    const reply = error.response ?? error.message ?? 'unknown error';
    let text = `${error.code ?? 'ERROR'}${error.responseCode ? ` ${error.responseCode}` : ''}: ${reply}`;
    // Redacted before shortening, so no part of a password is left at the cut.
    for (const form of this.#hidden) text = text.split(form).join('[redacted]');
    // Only a refusal of this message (its sender, recipient or content) is for good. A refused
    // login is retried: jobs outlive the process, so a corrected SMTP_URL and a restart send it.
    const refusedMessage = error.code === 'EENVELOPE' || error.code === 'EMESSAGE';
    return new MailFailure(text.replace(/\s+/g, ' ').slice(0, 500), refusedMessage && error.permanent === true);
  }

  close(): void {
    this.#transport.close();
  }
}
