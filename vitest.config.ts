import { tmpdir } from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// One embedded PostgreSQL per run (global setup), a fresh database per test file. Two projects:
// `slow` holds the tests that wait for real time to pass (*.slow.test.ts: timers the injected
// clock cannot move, real processes on the system clock); `default` holds everything else.
// The root config's global setup runs once per run for both, which inherit its provided values.
const SLOW = 'test/**/*.slow.test.ts';

// Every test file runs in a fresh Node process, and many start more (the CLI, the MCP stdio
// server, npm): Node's compile cache keeps V8's compiled code (and the TypeScript it stripped)
// between them, keyed by each file's content, so a changed file is compiled afresh.
process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'payment-service-node-compile-cache');

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) is shorter than a page load on a loaded 2-core runner: a poll
    // waits for what a person would see, so it gets the time a person's browser might take.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      // Three files at a time on 2 cores: each has its own database and servers on their own ports,
      // and much of a file's time is spent waiting on PostgreSQL, Chromium, a chain or a timer, not on
      // its own CPU (with two, the cores were idle about 40 % of a run; three took a run from about
      // 20 to 17 minutes). Vitest's default is one fewer than the CPUs: on 2 cores, one at a time.
      { test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, SLOW], maxWorkers: 3, sequence: { groupOrder: 0 } } },
      // The real-time tests afterwards, one at a time, with nothing of this run beside them.
      { test: { name: 'slow', include: [SLOW], maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
