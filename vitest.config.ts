import { defineConfig } from 'vitest/config'

// Unit tests run in parallel; integration and e2e tests share one real Kafka, registry and
// Keycloak (see test/stack/global-setup.ts for where they come from). Each integration test makes
// its own topics, data directory and ports (a broker it stops is a private one), so they run in
// parallel too: most of their time is waiting on a server, not a core. Three at once on two cores.
export default defineConfig({
  test: {
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['**/*.unit.test.ts'],
          exclude: ['node_modules/**'],
          // Some unit tests run a real tool (promtool, amtool, bash, chDB): on two busy cores one took
          // over vitest's default 5 s. A timeout is not what these tests assert (#21: no test fails by timing).
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['**/*.integration.test.ts', '**/*.e2e.test.ts'],
          exclude: ['node_modules/**'],
          globalSetup: ['test/stack/global-setup.ts'],
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
