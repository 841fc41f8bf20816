import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { conversationPool, historyDates } from '../bench-conversations.ts'
import {
  benchKafkaAndCodec,
  createBacklogTopic,
  deleteBacklogTopic,
  fillBacklog,
  measureBacklogDrain,
  sumOf,
} from '../worker-backlog.ts'

// Where a history drain's time goes (#30): the worker on TOTAL live conversations, then on as many
// spread over ten years of months (as bench:worker does), with the write and keeper figures of its
// metrics. Run alone: `node bench/experiments/history-drain.ts` (the stack up).
const total = Number(process.env.TOTAL ?? 5000)
const workerMain = fileURLToPath(new URL('../../services/worker/main.ts', import.meta.url))
const { kafka, codec } = await benchKafkaAndCodec('history-drain')

const kinds = { live: conversationPool(), history: conversationPool(4000, 2024, historyDates) }
for (const kind of (process.env.KINDS ?? 'live,history').split(',') as Array<keyof typeof kinds>) {
  const topic = `bench.history-drain.${kind}.${randomUUID()}`
  await createBacklogTopic(kafka, topic)
  try {
    await fillBacklog({ kafka, codec, conversation: kinds[kind].event, topic, count: total })
    // WORKER_ENV='{"WORKER_HOUR_ROLLUP_INTERVAL_MS":"240000"}': settings of the worker tried.
    const env = JSON.parse(process.env.WORKER_ENV ?? '{}') as Record<string, string>
    const drain = await measureBacklogDrain({ topic, total, workerMain, env })
    const text = drain.metrics
    const tables = [
      ...text.matchAll(/^worker_insert_duration_seconds_sum\{[^}]*table="([a-z_]+)"[^}]*\} (\S+)/gm),
    ]
    console.log(
      JSON.stringify({
        kind,
        total,
        perSecond: Math.round(drain.conversationsPerSecond),
        seconds: +drain.seconds.toFixed(1),
        consumedSeconds: +drain.consumedSeconds.toFixed(1),
        cpuMsPerConversation: +drain.drainCpuMsPerConversation.toFixed(2),
        writes: sumOf(text, 'worker_batch_messages_count'),
        insertSeconds: Object.fromEntries(
          tables.map(([, table, value]) => [table, +Number(value).toFixed(1)]),
        ),
        keeperPasses: sumOf(text, 'worker_hour_rollup_passes_total'),
        keeperSeconds: +sumOf(text, 'worker_hour_rollup_pass_seconds_sum').toFixed(1),
        hoursRecomputed: sumOf(text, 'worker_hour_rollup_recomputed_hours_total'),
        rssMb: drain.rssMb,
      }),
    )
  } finally {
    await deleteBacklogTopic(kafka, topic)
  }
}
process.exit(0)
