import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one fork fewer than the cores: on a 2-core CI machine that ran every file
    // one after another (20 minutes). Most files wait on the processes and servers they start, so
    // one fork per core keeps both busy; the tests that judge memory do it per process (GNU time),
    // and time limits that a loaded machine could pass are set as on an unloaded one.
    maxWorkers: Math.max(2, availableParallelism()),
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
