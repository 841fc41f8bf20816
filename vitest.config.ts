import { defineConfig } from 'vitest/config'

// Unit tests run in parallel; integration and e2e tests share one real Kafka, registry and
// Keycloak (see test/stack/global-setup.ts for where they come from), one file at a time.
export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['**/*.unit.test.ts'], exclude: ['node_modules/**'] },
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
