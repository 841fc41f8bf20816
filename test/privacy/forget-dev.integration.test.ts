import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import type { EventCodec } from '../../core/event/event-codec.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type DevProcess, startDev, voiceAnalytics } from '../support/dev-process.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { freePort } from '../support/private-kafka.ts'
import { connectedProducer, produceEvents, testCodec } from '../support/produce-events.ts'
import { waitFor } from '../support/wait-for.ts'
import { workerEnv } from '../support/worker-settings.ts'

// `voice-analytics forget` (and --status) while `npm run dev` runs (#30): the command goes through
// dev's endpoint (POST /forget, behind its token), which holds the embedded data directory, so the
// caller is erased while dev goes on consuming; what arrives during and after the erasure is stored,
// and a re-delivery of the forgotten conversation afterwards is not stored again.
describe('voice-analytics forget while npm run dev runs', () => {
  const data = tempDataDir('forget-dev')
  let producer: BatchProducer
  let codec: EventCodec
  let topic: string
  let env: Record<string, string>
  let dev: DevProcess | undefined
  // One partition: a conversation produced after another is stored after it.
  const events = generateConversations({ count: 12, seed: 30, historyItems: 6 })
  const forgotten = events[0]!
  const during = events.slice(4, 8)
  const after = events.slice(8, 12)

  const cli = (...args: string[]) => voiceAnalytics(env, ...args)
  const stored = async (sessionIds: readonly string[]) => {
    const { stdout } = await cli(
      'query',
      `SELECT count() FROM voice_analytics.conversations WHERE session_id IN (${sessionIds.map((id) => `'${id}'`).join(', ')})`,
      '--format',
      'TSV',
    )
    return Number(stdout.trim())
  }
  const ids = (chosen: readonly ConversationCompleteEvent[]) => chosen.map((event) => event.data.session_id)

  beforeAll(async () => {
    const kafka = testKafka()
    topic = await createTestTopic(kafka, 'forget-dev', 1)
    producer = await connectedProducer(kafka)
    codec = await testCodec()
    env = {
      ...workerEnv(topic, data.dir),
      INGRESS_PORT: '0',
      INGRESS_HOST: '127.0.0.1',
      DEV_SQL_PORT: String(await freePort()),
      // The endpoint's token and the audit key in the test's own dir, not the checkout's data/.
      VA_STATE_DIR: data.dir,
      WEBHOOK_SECRETS: `devtest=${randomBytes(18).toString('base64url')}`,
      LOG_LEVEL: 'info',
    }
    dev = await startDev(env)
    await produceEvents(producer, codec, topic, events.slice(0, 4))
    await waitFor(
      () => stored(ids(events.slice(0, 4))),
      (n) => n === 4,
      90_000,
      'the first conversations stored',
    )
  }, 240_000)

  afterAll(async () => {
    await dev?.stop()
    await producer?.disconnect()
    data.remove()
  })

  it('erases the caller through the endpoint while dev keeps consuming', async () => {
    // Ingest goes on during the erasure: conversations produced while forget runs.
    const erasure = cli('forget', '--session-id', forgotten.data.session_id, '--yes')
    await produceEvents(producer, codec, topic, during)
    const done = await erasure
    expect(done.stdout).toMatch(/^1 conversation\(s\) of this caller; rows to remove:\n/)
    expect(done.stdout).toMatch(/erasure [0-9a-f-]{36}: removed\n/)
    expect(done.stdout).toMatch(/^ {2}conversations +1$/m)
    expect(done.stdout).toContain('tables: nothing left')
    expect(await stored([forgotten.data.session_id])).toBe(0)
    expect(await stored(ids(events.slice(1, 4)))).toBe(3) // the others of before stay
    await waitFor(
      () => stored(ids(during)),
      (n) => n === during.length,
      90_000,
      'what arrived during the erasure',
    )
    expect(dev!.process.exitCode).toBe(null) // dev was never stopped
  })

  it('refuses an erasure without the endpoint token', async () => {
    const response = await fetch(`http://127.0.0.1:${env.DEV_SQL_PORT}/forget`, {
      method: 'POST',
      body: JSON.stringify({ status: true }),
    })
    expect(response.status).toBe(401)
  })

  it('lists the erasure with --status through the endpoint', async () => {
    const { stdout } = await cli('forget', '--status')
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/ session_id [0-9a-f]{16}… {2}1 conversation\(s\) {2}verified .+: nothing left$/)
    expect(stdout).not.toContain(forgotten.data.session_id)
  })

  it('does not store a re-delivery of the forgotten conversation, and stores what comes after it', async () => {
    await produceEvents(producer, codec, topic, [forgotten, ...after])
    // One partition: once the conversations after it are stored, the re-delivery was handled.
    await waitFor(
      () => stored(ids(after)),
      (n) => n === after.length,
      90_000,
      'the conversations after it',
    )
    expect(await stored([forgotten.data.session_id])).toBe(0)
    expect(dev!.process.exitCode).toBe(null)
  })
})
