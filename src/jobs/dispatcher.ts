import type { PgBoss } from 'pg-boss';

/** A job as pg-boss hands it out: which one, and which of its runs (pg-boss's own retries). */
interface JobAttempt {
  id: string;
  retryCount: number;
}

// Runs a queue's jobs one by one, up to `concurrency` at once: each job is fetched as a slot
// frees and settled on its own, so a slow job (an endpoint that takes its 10 seconds) holds up
// nothing but itself. pg-boss's own batch workers wait for a whole batch before fetching again.
// With `groupConcurrency`, pg-boss's fetch skips the jobs of a group (an endpoint) that already
// has that many active in the database, whichever process runs them: they wait in the queue,
// holding no slot, and the next fetch after one of the group's jobs settles takes them.
// Completions are written in one statement before each fetch, so the counts the fetch reads
// are current; a job whose handler throws is failed (pg-boss retries it); a job cut short by a
// crash comes back after its expiry (and counts as active in its group until then).

export interface DispatcherOptions {
  concurrency: number;
  /** Jobs of one group (pg-boss's group id) active at once, across every process. */
  groupConcurrency?: number;
  /** How often an idle dispatcher looks for jobs (due retries, new ones) when nothing wakes it. */
  idlePollMs: number;
  log?: (error: Error) => void;
}

interface FetchedJob<T> extends JobAttempt {
  data: T;
}

const FETCH_MAX = 50;

export class Dispatcher<T> {
  readonly #boss: PgBoss;
  readonly #queue: string;
  readonly #handle: (job: FetchedJob<T>) => Promise<void>;
  readonly #options: DispatcherOptions;
  readonly #inFlight = new Set<Promise<void>>();
  #completed: JobAttempt[] = [];
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** A wake that came while the loop was busy: its next pause ends at once. */
  #woken = false;

  constructor(boss: PgBoss, queue: string, handle: (job: FetchedJob<T>) => Promise<void>, options: DispatcherOptions) {
    this.#boss = boss;
    this.#queue = queue;
    this.#handle = handle;
    this.#options = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Looks for jobs now (new ones were queued, or a slot freed), not at the next poll. */
  wake(): void {
    if (this.#wake) this.#wake();
    else this.#woken = true;
  }

  /** Waits up to `ms` or until woken (a slot freed, new jobs, or stop). */
  #pause(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const free = this.#options.concurrency - this.#inFlight.size;
      if (free <= 0) {
        await this.#pause(1_000);
        continue;
      }
      // Woken from here on: a job that commits during this fetch is looked for again.
      this.#woken = false;
      await this.#flush();
      const batchSize = Math.min(free, FETCH_MAX);
      let jobs: Array<FetchedJob<T>>;
      try {
        const { groupConcurrency } = this.#options;
        jobs = await this.#boss.fetch<T>(this.#queue, { batchSize, ...(groupConcurrency ? { groupConcurrency } : {}) });
      } catch (error) {
        this.#options.log?.(error as Error);
        await this.#pause(1_000);
        continue;
      }
      for (const job of jobs) {
        const running: Promise<void> = this.#settle(job).finally(() => {
          this.#inFlight.delete(running);
          this.wake();
        });
        this.#inFlight.add(running);
      }
      // A short batch took all there was to take (every job due, or every endpoint at its
      // share): fetching again finds more only once a job settles, a new one commits, or a
      // retry comes due, and a fetch that finds nothing reads past every queued job to learn so.
      if (jobs.length < batchSize) await this.#pause(this.#options.idlePollMs);
    }
  }

  async #settle(job: FetchedJob<T>): Promise<void> {
    try {
      await this.#handle(job);
      this.#completed.push({ id: job.id, retryCount: job.retryCount });
    } catch (error) {
      await this.#boss.fail(this.#queue, { id: job.id, retryCount: job.retryCount }, { message: error instanceof Error ? error.message : String(error) })
        .catch((failure: unknown) => this.#options.log?.(failure as Error));
    }
  }

  async #flush(): Promise<void> {
    const batch = this.#completed;
    this.#completed = [];
    if (batch.length === 0) return;
    // A completion that cannot be written leaves the job active: it comes back after its expiry,
    // and the handler finds its work already recorded.
    await this.#boss.complete(this.#queue, batch).catch((error: unknown) => this.#options.log?.(error as Error));
  }

  /** Stops fetching, lets the jobs in flight finish (up to `timeoutMs`), and records them. */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    await Promise.race([Promise.allSettled([...this.#inFlight]), new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
    await this.#flush();
  }
}
