import type { Command } from 'commander'
import { openClickHouse } from '../../core/clickhouse/clickhouse-open.ts'
import { createKafka } from '../../core/kafka/kafka.ts'
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
    const kafka = createKafka(
      { brokers: config.KAFKA_BROKERS, clientId: `${config.KAFKA_CLIENT_ID}-replay` },
      logger,
    )
    const admin = kafka.admin()
    await admin.connect()
    try {
      const ends = await admin.fetchTopicOffsets(topic)
      const atTime = from.kind === 'time' ? await admin.fetchTopicOffsetsByTimestamp(topic, from.ms) : []
      const ranges: PartitionRange[] = ends.map((end) => {
        const found = atTime.find((entry) => entry.partition === end.partition)
        const high = BigInt(end.high)
        return {
          partition: end.partition,
          start: startOffset(from, BigInt(end.low), high, found ? BigInt(found.offset) : undefined),
          end: high,
        }
      })
      const { total } = replayTotals(ranges, new Map())
      if (total === 0n) {
        process.stdout.write(`nothing to replay on ${topic} from ${options.from}\n`)
        return
      }
      await admin.setOffsets({
        groupId,
        topic,
        partitions: ranges.map((range) => ({ partition: range.partition, offset: range.start.toString() })),
      })
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
          const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] })
          const committed = new Map(
            (offsets?.partitions ?? [])
              .filter((partition) => partition.offset !== '-1')
              .map((partition) => [partition.partition, BigInt(partition.offset)]),
          )
          done = replayTotals(ranges, committed).done
          const line = progressLine(done, total, Number(done) / ((Date.now() - started) / 1000))
          process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`)
        }
        if (process.stderr.isTTY) process.stderr.write('\n')
      } finally {
        await worker.stop()
        await clickhouse.close()
      }
      await admin.deleteGroups([groupId]).catch(() => {})
      process.stdout.write(
        `replayed ${total} messages of ${topic} from ${options.from} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      )
    } finally {
      await admin.disconnect()
    }
  })
}
