import { hostOf, isLoopbackHost } from './address-policy.ts';

// The ports the service itself listens on, on this machine: its API, its metrics listener, its
// PostgreSQL (embedded or local) and where the processor posts its notices. Test webhooks may go to
// http://localhost (spec 4.4), but never here: the delivery log would show a stranger the answer.

/** A URL's port, the scheme's default when it names none. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : url.protocol === 'postgres:' || url.protocol === 'postgresql:' ? 5432 : 0;
}

export class OwnPorts {
  readonly #ports = new Set<number>();

  /** A port listened on here (0 and undefined, an unset or not yet bound port, are ignored). */
  add(port: number | undefined): void {
    if (port !== undefined && port > 0) this.#ports.add(port);
  }

  /** The port of a URL the service answers at, when that URL is on this machine. */
  addUrl(text: string | undefined): void {
    if (text === undefined || !URL.canParse(text)) return;
    const url = new URL(text);
    if (isLoopbackHost(hostOf(url))) this.add(portOf(url));
  }

  has(port: number): boolean {
    return this.#ports.has(port);
  }
}
