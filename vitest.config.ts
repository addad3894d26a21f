import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'clients/**/*.test.ts', 'bench/**/*.test.ts'],
    // End-to-end suites start real Chromium hosts; two cores cannot run many at once.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what a user would wait for on a busy two-core machine (vitest's default is 1 s).
    expect: { poll: { timeout: 10_000 } },
    globalSetup: ['test/global-setup.ts'],
  },
});
