import type { Command } from 'commander'
import { openClickHouse } from '../../core/clickhouse/clickhouse-open.ts'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import {
  committedOffsets,
  offsetsAtTime,
  partitionOffsets,
  setCommittedOffsets,
} from '../../core/kafka/kafka-offsets.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { startWorker } from '../../services/worker/worker.ts'
import {
  type PartitionRange,
  parseReplayFrom,
  progressLine,
  replayTotals,
  startOffset,
} from '../replay/replay-plan.ts'
import { addRetentionOptions, type RetentionOptions } from '../retention/retention-options.ts'

// `replay --from <time|offset>`: reads the event topic again into ClickHouse, from a time or
// offset up to where the topic ended when the replay started. It runs the worker's own pipeline
// under a consumer group of its own, so the rows deduplicate exactly as the worker's do; the
// running workers' offsets are not touched. Progress goes to stderr. The tables' retention is
// changed only with --ttl-days / --rollup-ttl-days, never from the caller's environment.
export function registerReplayCommand(program: Command): void {
  const command = program
    .command('replay')
    .description('re-read the event topic into ClickHouse (idempotent: nothing is counted twice)')
    .requiredOption(
      '--from <time|offset>',
      '"earliest", an offset applied to every partition, or an ISO 8601 time',
    )
  addRetentionOptions(command).action(async (options: { from: string } & RetentionOptions) => {
    const from = parseReplayFrom(options.from)
    const config = {
      ...loadConfig(),
      CLICKHOUSE_TTL_DAYS: options.ttlDays,
      CLICKHOUSE_ROLLUP_TTL_DAYS: options.rollupTtlDays,
    }
    const logger = createLogger('replay', config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL)
    const topic = config.WORKER_TOPIC
    const groupId = `${config.WORKER_GROUP_ID}-replay-${Date.now()}`
    const kafka = { brokers: config.KAFKA_BROKERS, clientId: `${config.KAFKA_CLIENT_ID}-replay` }
    await withKafkaAdmin(kafka, async (admin) => {
      const ends = await partitionOffsets(admin, topic)
      const atTime =
        from.kind === 'time' ? await offsetsAtTime(admin, topic, from.ms) : new Map<number, bigint>()
      const ranges: PartitionRange[] = ends.map(({ partition, low, high }) => ({
        partition,
        start: startOffset(from, low, high, atTime.get(partition)),
        end: high,
      }))
      const { total } = replayTotals(ranges, new Map())
      if (total === 0n) {
        process.stdout.write(`nothing to replay on ${topic} from ${options.from}\n`)
        return
      }
      await setCommittedOffsets(
        admin,
        groupId,
        topic,
        new Map(ranges.map((range) => [range.partition, range.start])),
      )
      const clickhouse = openClickHouse(
        config,
        'stop it during the replay (the data directory has one owner)',
      )
      const worker = await startWorker({ ...config, WORKER_GROUP_ID: groupId }, logger, {
        clickhouse,
        metricsServer: false,
      })
      const started = Date.now()
      let done = 0n
      try {
        while (done < total) {
          await new Promise((resolve) => setTimeout(resolve, 500))
          done = replayTotals(ranges, await committedOffsets(admin, groupId, topic)).done
          const line = progressLine(done, total, Number(done) / ((Date.now() - started) / 1000))
          process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`)
        }
        if (process.stderr.isTTY) process.stderr.write('\n')
      } finally {
        await worker.stop()
        await clickhouse.close()
      }
      await admin.deleteGroups({ groups: [groupId] }).catch(() => {})
      process.stdout.write(
        `replayed ${total} messages of ${topic} from ${options.from} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      )
    })
  })
}
