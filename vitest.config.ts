import { defineConfig } from 'vitest/config'

// Unit tests run in parallel; integration and e2e tests share one real Kafka, registry and
// Keycloak (see test/stack/global-setup.ts for where they come from), one file at a time.
export default defineConfig({
  test: {
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
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
