import { EventEmitter } from 'node:events';
import pg from 'pg';

// "Something about credentials changed": revocations, suspensions, role changes. Servers keep
// verified credentials for a few seconds and forget them all on this signal. In this process the
// signal is synchronous (announced right after the change commits); from other processes it
// arrives through PostgreSQL NOTIFY (migrations/0002).

const changes = new EventEmitter();
changes.setMaxListeners(0);

export function announceAuthChange(): void {
  changes.emit('changed');
}

export function onAuthChange(listener: () => void): () => void {
  changes.on('changed', listener);
  return () => changes.off('changed', listener);
}

export interface AuthChangeListener {
  /** False while not listening (starting, reconnecting): caches must not be trusted then. */
  readonly listening: boolean;
  close(): Promise<void>;
}

/** Listens for NOTIFY auth_changed on a dedicated connection, reconnecting after failures. */
export function listenForAuthChanges(connectionString: string, retryMs = 1000): AuthChangeListener {
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const next = new pg.Client({ connectionString, application_name: 'payment-service-auth-changes' });
    const lost = () => {
      if (client !== next) return;
      listening = false;
      client = undefined;
      announceAuthChange();
      next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), retryMs);
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', () => announceAuthChange());
    client = next;
    try {
      await next.connect();
      await next.query('LISTEN auth_changed');
      if (closed) return void next.end().catch(() => undefined);
      listening = true;
      // Anything cached before listening began may be stale.
      announceAuthChange();
    } catch {
      lost();
    }
  };
  void connect();

  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
