import type { BackoffSettings } from '../runtime/backoff.ts'
import type { Logger } from '../runtime/logger.ts'
import { retryUntil } from '../runtime/retry-until.ts'
import { createKafkaAdmin, ensureTopics } from './kafka-admin.ts'
import { describeKafkaError } from './kafka-errors.ts'
import type { KafkaSettings } from './kafka-settings.ts'
import { retentionSpec } from './topic-creation.ts'

// The topics a service reads and writes, created at its start (the worker, the assembler).
/**
 * The topics exist (created if missing). Kafka unreachable at start is retried (as the worker's
 * ClickHouse), so a service started before its broker (compose, a broker restart) comes
 * up by itself instead of exiting.
 */
export async function prepareKafkaTopics(
  settings: KafkaSettings,
  names: readonly string[],
  maxMessageBytes: number,
  retentionHours: number,
  logger: Logger,
  signal: AbortSignal,
  backoff: BackoffSettings,
): Promise<void> {
  await retryUntil(
    async () => {
      const admin = createKafkaAdmin(settings)
      try {
        await ensureTopics(
          admin,
          names.map((name) => retentionSpec(name, retentionHours)),
          maxMessageBytes,
        )
      } finally {
        await admin.close()
      }
    },
    {
      signal,
      backoff,
      onFailure: (error, attempt, delayMs) =>
        logger.warn(
          { attempt, retryInMs: delayMs, brokers: settings.brokers, error: describeKafkaError(error) },
          'Kafka not ready: retrying',
        ),
    },
  )
}
