import pg from 'pg';

// One active processor per network (issue 22, must have 4): a PostgreSQL session advisory lock
// per network, held on a connection of its own for as long as this processor runs. A second
// processor started by mistake tries the same locks on each poll and scans, forwards and reports
// nothing until it holds one; when the first dies, its connection closes, PostgreSQL releases
// its locks, and the second takes over at its next poll. Scans and forwards are also safe without
// the lock (each fact is written once, by its key); the lock keeps two processors from signing
// and paying gas for the same forward.

/** The lock's key: a stable 64-bit number per network, taken by hashtextextended in PostgreSQL. */
const LOCK_NAME = (network: string) => `payment-service processor ${network}`;

export class NetworkLocks {
  readonly #databaseUrl: string;
  readonly #log: (line: string) => void;
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client | undefined> | undefined;
  readonly #held = new Set<string>();
  #closed = false;

  constructor(databaseUrl: string, log: (line: string) => void) {
    this.#databaseUrl = databaseUrl;
    this.#log = log;
  }

  /** Whether this processor holds the network's lock (as of its last try). */
  holds(network: string): boolean {
    return this.#held.has(network);
  }

  async #connection(): Promise<pg.Client | undefined> {
    if (this.#client) return this.#client;
    this.#connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.#databaseUrl, application_name: 'payment-service-processor-locks' });
      const lost = () => {
        if (this.#client !== client) return;
        // Every lock went with the connection: nothing is held until it is taken again.
        if (this.#held.size > 0) this.#log(`[processor] lost the database connection holding ${[...this.#held].join(', ')}; standing by until the locks are taken again`);
        this.#client = undefined;
        this.#held.clear();
        client.end().catch(() => undefined);
      };
      client.on('error', lost);
      client.on('end', lost);
      try {
        await client.connect();
        if (this.#closed) {
          await client.end();
          return undefined;
        }
        this.#client = client;
        return client;
      } catch (error) {
        this.#log(`[processor] could not connect to take the network locks: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      } finally {
        this.#connecting = undefined;
      }
    })();
    return this.#connecting;
  }

  /**
   * Tries to take each network's lock not held yet, and checks the connection holding the others
   * is alive. Answers the networks this processor holds.
   */
  async take(networks: readonly string[]): Promise<Set<string>> {
    const client = await this.#connection();
    if (!client) return new Set();
    try {
      for (const network of networks) {
        if (this.#held.has(network)) continue;
        const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [LOCK_NAME(network)]);
        if (result.rows[0]?.locked) {
          this.#held.add(network);
          this.#log(`[processor] ${network}: this processor is the active one`);
        }
      }
      // A held lock is only as good as the connection: ask it once per poll.
      if (this.#held.size > 0) await client.query('SELECT 1');
    } catch (error) {
      this.#log(`[processor] the network locks' connection failed: ${error instanceof Error ? error.message : String(error)}`);
      this.#held.clear();
      this.#client = undefined;
      await client.end().catch(() => undefined);
    }
    return new Set(this.#held);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? await this.#connecting;
    this.#client = undefined;
    this.#held.clear();
    await client?.end().catch(() => undefined);
  }
}
