import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'clients/**/*.test.ts', 'bench/**/*.test.ts'],
    // Two test files at once, one per core: an end-to-end file waits on its browser, its shell
    // and its timers for about half its time, so two side by side take the whole suite from
    // 1,480 s to 980 s on a two-core machine (both runs whole and green). More than two starve
    // each other's real Chromium hosts. Every file is made to run beside another: each test's
    // servers, hosts, displays (Xvfb -displayfd), ports (0) and temp dirs are its own.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what a user would wait for on a busy two-core machine (vitest's default is 1 s).
    expect: { poll: { timeout: 10_000 } },
    globalSetup: ['test/global-setup.ts'],
  },
});
