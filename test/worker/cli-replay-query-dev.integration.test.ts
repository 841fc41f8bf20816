import { randomBytes, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { partitionOffsets, setCommittedOffsets } from '../../core/kafka/kafka-offsets.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { loadFixtureText } from '../fixtures/index.ts'
import { startDev, voiceAnalytics } from '../support/dev-process.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { freePort } from '../support/private-kafka.ts'
import { connectedProducer, produceEvents, testCodec } from '../support/produce-events.ts'
import { waitFor } from '../support/wait-for.ts'
import { workerEnv } from '../support/worker-settings.ts'

// The operator's tools as processes: `voice-analytics replay` and `query`, and `npm run dev`
// (ingress + worker + the read-only SQL endpoint that `query` uses while dev owns the data).
describe('voice-analytics replay and query', () => {
  const data = tempDataDir('cli-replay')
  let kafka: KafkaSettings
  let producer: BatchProducer
  let env: Record<string, string>

  beforeAll(async () => {
    kafka = testKafka()
    const topic = await createTestTopic(kafka, 'cli-replay', 2)
    producer = await connectedProducer(kafka)
    await produceEvents(
      producer,
      await testCodec(),
      topic,
      generateConversations({ count: 200, seed: 12, historyItems: 10 }),
    )
    env = workerEnv(topic, data.dir, { DEV_SQL_PORT: String(await freePort()) })
  })
  afterAll(async () => {
    await producer?.disconnect()
    data.remove()
  })

  const count = async (table: string) => {
    const { stdout } = await voiceAnalytics(
      env,
      'query',
      `SELECT count() FROM voice_analytics.${table}`,
      '--format',
      'TSV',
    )
    return Number(stdout.trim())
  }

  it('replays the topic into ClickHouse, and again without counting anything twice', async () => {
    const first = await voiceAnalytics(env, 'replay', '--from', 'earliest')
    expect(first.stdout).toMatch(/replayed 200 messages/)
    expect(first.stderr).toMatch(/100% 200\/200 messages/)
    expect(await count('conversations')).toBe(200)
    const items = await count('conversation_items')
    expect(items).toBeGreaterThan(1000)

    const again = await voiceAnalytics(env, 'replay', '--from', '0')
    expect(again.stdout).toMatch(/replayed 200 messages/)
    expect(await count('conversations')).toBe(200)
    expect(await count('conversation_items')).toBe(items)

    const future = await voiceAnalytics(env, 'replay', '--from', '2999-01-01T00:00:00Z')
    expect(future.stdout).toMatch(/nothing to replay/)
  })

  it('answers read-only SQL and refuses writes', async () => {
    const { stdout } = await voiceAnalytics(env, 'query', 'SELECT 1 + 1 AS two', '--format', 'JSONEachRow')
    expect(JSON.parse(stdout)).toEqual({ two: 2 })
    // Captured, not a terminal: plain values, as `n=$(./run query …)` needs (a table before #21).
    expect((await voiceAnalytics(env, 'query', 'SELECT 1 + 1 AS two, 3 AS three')).stdout).toBe('2\t3\n')
    await expect(
      voiceAnalytics(env, 'query', "INSERT INTO voice_analytics.handoffs (session_id) VALUES ('x')"),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/readonly/) })
  })
})

describe('npm run dev', () => {
  const data = tempDataDir('dev')
  let kafka: KafkaSettings
  let env: Record<string, string>
  const secret = randomBytes(18).toString('base64url')

  beforeAll(async () => {
    kafka = testKafka()
    // dev consumes the contract topic; a fresh group starting at its end sees only this test's event.
    const groupId = `va-test-dev-${randomUUID()}`
    await withKafkaAdmin(kafka, async (admin) => {
      const ends = await partitionOffsets(admin, topics.conversationComplete)
      await setCommittedOffsets(
        admin,
        groupId,
        topics.conversationComplete,
        new Map(ends.map(({ partition, high }) => [partition, high])),
      )
    })
    env = {
      ...workerEnv(topics.conversationComplete, data.dir, { WORKER_GROUP_ID: groupId }),
      WORKER_DLQ_TOPIC: topics.deadLetter,
      INGRESS_PORT: '0',
      INGRESS_HOST: '127.0.0.1',
      DEV_SQL_PORT: String(await freePort()),
      // The endpoint's token (and any made-up secret) in the test's own dir, not the checkout's data/.
      VA_STATE_DIR: data.dir,
      WEBHOOK_SECRETS: `devtest=${secret}`,
      LOG_LEVEL: 'info',
    }
  })
  afterAll(() => data.remove())

  it('runs ingress and worker together and serves SQL to `voice-analytics query`', async () => {
    const dev = await startDev(env)
    let exitCode: number | null
    try {
      const ingressUrl = await waitFor(
        async () => /"ingress":"(http:[^"]+)"/.exec(dev.output())?.[1],
        (url) => url !== undefined,
        60_000,
        'dev pipeline running',
      )
      // A session of its own: other test files deliver the same fixture to the shared topic meanwhile
      // (between this group's start offsets and this delivery), and the first row seen could be theirs.
      const sessionId = randomUUID()
      const fixture = JSON.parse(loadFixtureText('full'))
      fixture.data.session_id = sessionId
      const body = JSON.stringify(fixture)
      const response = await fetch(`${ingressUrl}/webhooks/conversation-complete?token=${secret}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(response.status).toBe(202)
      const sql = `SELECT item_count, source FROM voice_analytics.conversations WHERE session_id = '${sessionId}'`
      const row = await waitFor(
        async () => (await voiceAnalytics(env, 'query', sql, '--format', 'JSONEachRow')).stdout.trim(),
        (text) => text !== '',
        60_000,
        'the conversation to be queryable',
      )
      expect(JSON.parse(row)).toEqual({ item_count: JSON.parse(body).data.history.length, source: 'devtest' })
    } finally {
      exitCode = await dev.stop()
    }
    expect(exitCode).toBe(0)
  })
})
