import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { conversationTables } from '../../core/clickhouse/clickhouse-retention.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { connectedProducer, produceEvents, testCodec } from '../support/produce-events.ts'
import { workerEnv } from '../support/worker-settings.ts'

// `migrate` and `replay` leave the tables' retention as it is unless --ttl-days asks: neither the
// caller's CLICKHOUSE_TTL_DAYS nor its absence may reset a TTL someone chose (issue #10).
const cli = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))
const run = promisify(execFile)

describe('retention with migrate and replay', () => {
  const data = tempDataDir('cli-retention')
  let producer: BatchProducer
  let env: Record<string, string>

  async function voiceAnalytics(extra: Record<string, string>, ...args: string[]) {
    return run(process.execPath, [cli, ...args], {
      env: { ...process.env, CLICKHOUSE_TTL_DAYS: '', CLICKHOUSE_ROLLUP_TTL_DAYS: '', ...env, ...extra },
      timeout: 120_000,
    })
  }

  /** TTL days of every table, read through `voice-analytics query` (the CLI owns the data directory):
   * one process for all tables, as each start of the CLI loads the engine. */
  async function ttls(): Promise<Record<string, number | null>> {
    const { stdout } = await voiceAnalytics(
      {},
      'query',
      "SELECT name, engine_full FROM system.tables WHERE database = 'voice_analytics'",
      '--format',
      'TSVRaw',
    )
    const days: Record<string, number | null> = {}
    for (const line of stdout.trim().split('\n')) {
      const [name, engine = ''] = line.split('\t')
      const match = /toIntervalDay\((\d+)\)/.exec(engine)
      days[name!] = match ? Number(match[1]) : null
    }
    return days
  }
  /** The TTL days of the given tables, each table named (undefined: no such table). */
  async function ttlsOf(tables: readonly string[]): Promise<Record<string, number | null | undefined>> {
    const all = await ttls()
    return Object.fromEntries(tables.map((table) => [table, all[table]]))
  }
  const each = (tables: readonly string[], days: number | null) =>
    Object.fromEntries(tables.map((table) => [table, days]))

  beforeAll(async () => {
    const kafka = testKafka()
    const topic = await createTestTopic(kafka, 'cli-retention', 1)
    producer = await connectedProducer(kafka)
    await produceEvents(
      producer,
      await testCodec(),
      topic,
      generateConversations({ count: 5, seed: 3, historyItems: 2 }),
    )
    env = workerEnv(topic, data.dir)
  })
  afterAll(async () => {
    await producer?.disconnect()
    data.remove()
  })

  it('migrate sets the TTL only with --ttl-days, and keeps it without, whatever CLICKHOUSE_TTL_DAYS says', async () => {
    const set = await voiceAnalytics({}, 'migrate', '--ttl-days', '30')
    expect(set.stdout).toContain('MODIFY TTL toDateTime(event_time) + INTERVAL 30 DAY')
    expect(await ttlsOf([...conversationTables, 'agent_latency_minute'])).toEqual({
      ...each(conversationTables, 30),
      agent_latency_minute: null,
    })

    const plain = await voiceAnalytics({}, 'migrate')
    expect(plain.stdout).not.toMatch(/TTL/)
    expect(await ttlsOf(['conversations'])).toEqual({ conversations: 30 })

    await voiceAnalytics({ CLICKHOUSE_TTL_DAYS: '5', CLICKHOUSE_ROLLUP_TTL_DAYS: '0' }, 'migrate')
    expect(await ttlsOf(['conversations'])).toEqual({ conversations: 30 })
  })

  it('replay keeps the TTL without --ttl-days and sets it with', async () => {
    const plain = await voiceAnalytics({}, 'replay', '--from', 'earliest')
    expect(plain.stdout).toMatch(/replayed 5 messages/)
    expect(await ttlsOf(conversationTables)).toEqual(each(conversationTables, 30))

    await voiceAnalytics({}, 'replay', '--from', 'earliest', '--ttl-days', '7', '--rollup-ttl-days', '90')
    expect(await ttlsOf([...conversationTables, 'agent_latency_minute'])).toEqual({
      ...each(conversationTables, 7),
      agent_latency_minute: 90,
    })
  })

  it('migrate --ttl-days 0 removes the TTL; a bad number of days is refused', async () => {
    await voiceAnalytics({}, 'migrate', '--ttl-days', '0')
    expect(await ttlsOf(['conversations', 'agent_latency_minute'])).toEqual({
      conversations: null,
      agent_latency_minute: 90,
    })
    await expect(voiceAnalytics({}, 'migrate', '--ttl-days', 'ten')).rejects.toMatchObject({
      stderr: expect.stringMatching(/--ttl-days.*whole number of days/),
    })
  })
})
