import type { StartedTestContainer } from 'testcontainers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ClickHouseClient, createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { emptyTableRows, type TableRows, tableNames } from '../../services/worker/transform/table-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { loadAllFixtures } from '../fixtures/index.ts'
import { dockerAvailable } from '../stack/servers.ts'
import { embeddedClickHouse, tempDataDir } from '../support/embedded-clickhouse.ts'

// Server mode (CLICKHOUSE_URL): the same Native blocks through @clickhouse/client's exec, into a
// real ClickHouse server: from TEST_CLICKHOUSE_URL (user and password in the URL), else started by
// testcontainers where a Docker engine exists. Every table then holds what embedded chDB holds after
// the same writes, and a write repeated under its token is stored once. No such server can be had
// on machines without Docker (Debian's is 18.16): there the test is reported as not run, with why.
const serverImage = 'clickhouse/clickhouse-server:25.8'
const explicitUrl = process.env.TEST_CLICKHOUSE_URL
const notRunBecause =
  explicitUrl || dockerAvailable()
    ? undefined
    : 'no ClickHouse server: TEST_CLICKHOUSE_URL is not set and no Docker engine runs here'
if (notRunBecause) console.warn(`clickhouse-server-native-insert: NOT RUN, ${notRunBecause}`)

const database = 'va_server_route'
const rows = (): TableRows => {
  const all = emptyTableRows()
  Object.values(loadAllFixtures()).forEach((event, offset) => {
    const record = toAvroRecord(event, { source: 'prod', receivedAt: Date.UTC(2026, 10, 1) + offset })
    const made = conversationRows(record, { topic: 'server-test', partition: 0, offset, timestampMs: 0 })
    for (const table of tableNames) (all[table] as unknown[]).push(...(made[table] as unknown[]))
  })
  return all
}

async function printed(client: ClickHouseClient, table: string): Promise<string[]> {
  const columns = await (
    await client.query({
      query: `SELECT name FROM system.columns WHERE database = '${database}' AND table = '${table}'
        AND name != 'inserted_at' ORDER BY position`,
      format: 'JSONEachRow',
    })
  ).json<{ name: string }>()
  const result = await client.query({
    query: `SELECT ${columns.map((column) => column.name).join(', ')} FROM ${database}.${table}`,
    format: 'JSONEachRow',
  })
  return (await result.text())
    .split('\n')
    .filter((line) => line !== '')
    .sort()
}

describe.skipIf(notRunBecause !== undefined)(
  `Native blocks into a ClickHouse server (${serverImage} or TEST_CLICKHOUSE_URL)`,
  () => {
    const data = tempDataDir('server-native')
    let container: StartedTestContainer | undefined
    let server: ClickHouseClient
    let embedded: ClickHouseClient

    beforeAll(async () => {
      let url = explicitUrl
      if (!url) {
        const { GenericContainer, Wait } = await import('testcontainers')
        container = await new GenericContainer(serverImage)
          .withEnvironment({
            CLICKHOUSE_USER: 'va',
            CLICKHOUSE_PASSWORD: 'va-test',
            CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1',
          })
          .withExposedPorts(8123)
          .withWaitStrategy(Wait.forHttp('/ping', 8123).forStatusCode(200))
          .start()
        url = `http://va:va-test@${container.getHost()}:${container.getMappedPort(8123)}`
      }
      const parsed = new URL(url)
      server = createClickHouse({
        CLICKHOUSE_URL: `${parsed.origin}${parsed.pathname}`,
        CLICKHOUSE_USER: decodeURIComponent(parsed.username) || 'default',
        CLICKHOUSE_PASSWORD: decodeURIComponent(parsed.password),
        CLICKHOUSE_DATA_DIR: data.dir,
      })
      embedded = embeddedClickHouse(data.dir)
      await server.command({ query: `DROP DATABASE IF EXISTS ${database}` })
      for (const client of [server, embedded]) {
        await runMigrations(client, database)
        const written = rows()
        await insertTableRows(client, database, written, 'server-test-1')
        await insertTableRows(client, database, written, 'server-test-1')
      }
    })

    afterAll(async () => {
      await server?.command({ query: `DROP DATABASE IF EXISTS ${database}` })
      await server?.close()
      await embedded?.close()
      await container?.stop()
      data.remove()
    })

    it('stores what embedded chDB stores, in every table, a repeated write once', async () => {
      for (const table of [
        ...tableNames.filter((table) => !table.endsWith('_feed')),
        'agent_latency_minute',
        'conversation_latency',
      ]) {
        const want = await printed(embedded, table)
        expect(want.length, table).toBeGreaterThan(0)
        expect(await printed(server, table), table).toEqual(want)
      }
    })
  },
)

describe.runIf(notRunBecause !== undefined)('Native blocks into a ClickHouse server', () => {
  it.skip(`NOT RUN: ${notRunBecause}`, () => {})
})
