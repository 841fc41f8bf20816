import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { topics } from '../../core/kafka/topics.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { type RunningAssembler, startAssembler } from '../../services/assembler/assembler.ts'
import { otlpTracesRoute } from '../../services/ingress/otlp-route.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { database, embeddedClickHouse, queryRows, tempDataDir } from './embedded-clickhouse.ts'
import { startTestIngress, type TestIngress } from './ingress-test-server.ts'
import { createPrivateKafka, type PrivateKafka } from './private-kafka.ts'
import { waitFor } from './wait-for.ts'
import { testLogger, workerEnv } from './worker-settings.ts'

// The whole OTLP path of a test, as it runs in production: a real ingress with its receiver
// (POST /v1/traces), the assembler and the worker on a Kafka broker of the test's own (so every
// service uses its default topics, voice.otlp-spans.v1 and voice.conversation-complete.v1, and no
// other test's spans reach this assembler), the shared schema registry, and an embedded
// ClickHouse the worker migrates. Spans sent to `tracesUrl` end up as rows read back here.
type Row = Record<string, unknown>

export interface OtlpPipeline {
  ingress: TestIngress
  /** The receiver's URL: POST /v1/traces on the ingress. */
  tracesUrl: string
  clickhouse: ClickHouseClient
  /** The conversations stored (FINAL), by session_id. */
  conversations(): Promise<Map<string, Row>>
  /** Waits until every session id is stored; its rows by session_id. */
  waitForConversations(sessionIds: readonly string[], timeoutMs?: number): Promise<Map<string, Row>>
  /** A conversation's rows of conversation_items (by item_index), tool_calls (by call_index) or handoffs. */
  rows(table: 'conversation_items' | 'tool_calls' | 'handoffs', sessionId: string): Promise<Row[]>
  stop(): Promise<void>
}

/** A start-up step that names itself when it does not finish (a hook's timeout says only "timed out"). */
async function step<T>(what: string, started: Promise<T>, timeoutMs = 120_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not start within ${timeoutMs / 1000} s`)),
      timeoutMs,
    )
  })
  try {
    return await Promise.race([started, late])
  } finally {
    clearTimeout(timer)
  }
}

const order = { conversation_items: 'item_index', tool_calls: 'call_index', handoffs: 'item_index' }

/**
 * Starts the pipeline. `ingressSettings` are the ingress's (e.g. PII_POLICY); `assemblerSettings`
 * the assembler's ASSEMBLER_* (its defaults otherwise, but no metrics port).
 */
export async function startOtlpPipeline(
  name: string,
  ingressSettings: Record<string, string> = {},
  assemblerSettings: Record<string, string> = {},
): Promise<OtlpPipeline> {
  const data = tempDataDir(name)
  let kafka: PrivateKafka | undefined
  let worker: RunningWorker | undefined
  let assembler: RunningAssembler | undefined
  let ingress: TestIngress | undefined
  const clickhouse = embeddedClickHouse(data.dir)
  const stop = async () => {
    await ingress?.close()
    await assembler?.stop()
    await worker?.stop()
    await clickhouse.close()
    await kafka?.remove()
    data.remove()
  }
  try {
    kafka = await step('its Kafka broker', createPrivateKafka())
    await step('its Kafka broker', kafka.start())
    const env = workerEnv(topics.conversationComplete, data.dir, {
      KAFKA_BROKERS: kafka.brokers,
      WORKER_DLQ_TOPIC: topics.deadLetter,
      // its own broker: the topics the ingress writes, as shipped
      ASSEMBLER_TOPIC: topics.otlpSpans,
      ASSEMBLER_DLQ_TOPIC: topics.otlpSpansDeadLetter,
      ...assemblerSettings,
    })
    worker = await step('the worker', startWorker(loadConfig(env), testLogger(), { clickhouse }))
    assembler = await step('the assembler', startAssembler(loadConfig(env), testLogger()))
    ingress = await step(
      'the ingress',
      startTestIngress({ KAFKA_BROKERS: kafka.brokers, ...ingressSettings }),
    )
    await ingress.waitUntilReady()
  } catch (error) {
    await stop()
    throw error
  }
  const conversations = async () =>
    new Map(
      (
        await queryRows<Row>(clickhouse, `SELECT * FROM ${database}.conversations FINAL ORDER BY session_id`)
      ).map((row) => [row.session_id as string, row]),
    )
  return {
    ingress,
    tracesUrl: `${ingress.url}${otlpTracesRoute}`,
    clickhouse,
    conversations,
    async waitForConversations(sessionIds, timeoutMs = 60_000) {
      return waitFor(
        conversations,
        (found) => sessionIds.every((id) => found.has(id)),
        timeoutMs,
        `the conversations ${sessionIds.join(', ')} in ClickHouse`,
      )
    },
    rows: (table, sessionId) =>
      queryRows<Row>(
        clickhouse,
        `SELECT * FROM ${database}.${table} FINAL WHERE session_id = {s:String} ORDER BY ${order[table]}`,
        { s: sessionId },
      ),
    stop,
  }
}

/**
 * The columns of a conversation assembled whole from a framework's spans (migration 0020's origin),
 * not failed: what every OTLP conversation's row has, for toMatchObject.
 */
export function storedOrigin(framework: 'livekit-agents' | 'pipecat', mapping: string, traceId: string) {
  return {
    origin_kind: 'otlp',
    origin_framework: framework,
    origin_framework_version: null,
    origin_mapping: mapping,
    origin_trace_id: traceId,
    origin_complete: true,
    room_failed: null,
    error_message: null,
  }
}

const run = promisify(execFile)
const ensurePython = fileURLToPath(new URL('../../scripts/ensure-otlp-python.sh', import.meta.url))

/**
 * The python of a pinned client's venv (scripts/ensure-otlp-python.sh: `exporter`, `pipecat`,
 * `livekit`). Fails, never skips, without python3, its venv module or the packages, with the
 * script's message naming the fix.
 */
export async function otlpPython(client: 'exporter' | 'pipecat' | 'livekit' = 'exporter'): Promise<string> {
  try {
    return (await run('bash', [ensurePython, client], { timeout: 900_000 })).stdout.trim()
  } catch (error) {
    throw new Error(
      `the Python ${client} client could not be installed: ${(error as { stderr?: string }).stderr ?? error}`,
    )
  }
}
