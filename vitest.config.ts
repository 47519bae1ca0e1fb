import { defineConfig } from 'vitest/config';

// One embedded PostgreSQL per run (global setup), a fresh database per test file.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
