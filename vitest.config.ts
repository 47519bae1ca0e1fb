import { configDefaults, defineConfig } from 'vitest/config';

// One embedded PostgreSQL per run (global setup), a fresh database per test file. Two projects:
// `slow` holds the tests that wait for real time to pass (*.slow.test.ts: timers the injected
// clock cannot move, real processes on the system clock); `default` holds everything else.
// The root config's global setup runs once per run for both, which inherit its provided values.
const SLOW = 'test/**/*.slow.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, SLOW] } },
      { test: { name: 'slow', include: [SLOW] } },
    ],
  },
});
