import { randomUUID } from 'node:crypto'
import { createLogger } from '../../core/runtime/logger.ts'
import { type Config, loadConfig } from '../../core/settings/env.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../stack/servers.ts'

// The worker's settings in a test: its topic, a data directory of its own, the test's stack. Also
// those of the assembler that `dev` runs beside it: a spans topic and group of its own and no fixed
// metrics port, so that it never assembles other test files' spans into the shared event topic.

export function workerEnv(
  topic: string,
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    CLICKHOUSE_DATA_DIR: dataDir,
    WORKER_TOPIC: topic,
    WORKER_DLQ_TOPIC: `${topic}.dlq`,
    WORKER_GROUP_ID: `va-test-worker-${randomUUID()}`,
    ASSEMBLER_TOPIC: `${topic}.spans`,
    ASSEMBLER_DLQ_TOPIC: `${topic}.spans.dlq`,
    ASSEMBLER_GROUP_ID: `va-test-assembler-${randomUUID()}`,
    ASSEMBLER_METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    // The hour rollup's keeper twice a second: a test sees an ended hour taken in at once, not in 10 s.
    WORKER_HOUR_ROLLUP_INTERVAL_MS: '500',
    LOG_LEVEL: 'warn',
    ...extra,
  }
}

export function workerConfig(topic: string, dataDir: string, extra: Record<string, string> = {}): Config {
  return loadConfig(workerEnv(topic, dataDir, extra))
}

export const testLogger = () => createLogger('worker-test', process.env.TEST_LOG_LEVEL ?? 'warn')
