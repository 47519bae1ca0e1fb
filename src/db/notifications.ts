import pg from 'pg';

// One dedicated connection per process LISTENs to every channel the process cares about
// (credential changes, payment status changes) and fans each NOTIFY out in memory. It holds no
// connection of the pool. While it is not listening (starting, reconnecting) notices may be
// missed: each channel is told of the gap, when it begins and when listening resumes, so that
// what relies on notices (credential caches, payment waits) can look again.

export interface Channel {
  /** The NOTIFY channel's name. */
  name: string;
  /** A notice on the channel, with its payload. */
  onNotice(payload: string): void;
  /** Notices may have been missed (listening began, or the connection was lost). */
  onGap(): void;
}

export interface NotificationListener {
  /** False while not listening (starting, reconnecting): notices may be missed then. */
  readonly listening: boolean;
  close(): Promise<void>;
}

/** LISTENs to `channels` on one dedicated connection, reconnecting after failures. */
export function listenForNotifications(connectionString: string, channels: readonly Channel[], retryMs = 1000): NotificationListener {
  const byName = new Map(channels.map((channel) => [channel.name, channel]));
  const gap = () => { for (const channel of channels) channel.onGap(); };
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const next = new pg.Client({ connectionString, application_name: 'payment-service-notifications' });
    const lost = () => {
      if (client !== next) return;
      listening = false;
      client = undefined;
      gap();
      next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), retryMs);
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (notice) => byName.get(notice.channel)?.onNotice(notice.payload ?? ''));
    client = next;
    try {
      await next.connect();
      for (const channel of channels) await next.query(`LISTEN ${pg.escapeIdentifier(channel.name)}`);
      if (closed) return void next.end().catch(() => undefined);
      listening = true;
      // Anything learned before listening began may be stale.
      gap();
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
