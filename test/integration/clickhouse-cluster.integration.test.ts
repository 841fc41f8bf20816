import { fileURLToPath } from 'node:url'
import type { StartedNetwork, StartedTestContainer } from 'testcontainers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ClickHouseClient, createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { loadMigrations, runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { emptyTableRows, type TableRows, tableNames } from '../../services/worker/transform/table-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { loadAllFixtures } from '../fixtures/index.ts'
import { dockerAvailable } from '../stack/servers.ts'

// Cluster mode on a real cluster: the compose profile's Keeper and two shards
// (deploy/clickhouse-cluster/), started by testcontainers where a Docker engine exists. The
// migrations run in cluster form (CLICKHOUSE_CLUSTER), the worker's insert path writes through the
// Distributed tables, and then: every conversation's rows in every table sit on one shard, both
// shards hold some, a write repeated under its token is stored once, and the views read the cluster.
// Machines without Docker cannot have a ClickHouse cluster (Debian's server is 18.16): there the test
// is reported as not run, with why. The cluster DDL itself is parsed by chDB in
// core/clickhouse/clickhouse-cluster-ddl.unit.test.ts on every machine.
const image = 'clickhouse/clickhouse-server:26.3'
const cluster = 'va_cluster'
const database = 'voice_analytics'
const notRunBecause = dockerAvailable() ? undefined : 'no Docker engine'
if (notRunBecause) console.warn(`clickhouse-cluster: NOT RUN: ${notRunBecause}`)

const config = (file: string) =>
  fileURLToPath(new URL(`../../deploy/clickhouse-cluster/${file}`, import.meta.url))
const user = { CLICKHOUSE_USER: 'va', CLICKHOUSE_PASSWORD: 'va-cluster-test' }

/** Rows of the fixtures and of generated conversations, as the worker builds them. */
function rows(): TableRows {
  const all = emptyTableRows()
  const events = [...Object.values(loadAllFixtures()), ...generateConversations({ count: 60, seed: 23 })]
  events.forEach((event, offset) => {
    const record = toAvroRecord(event, { source: 'prod', receivedAt: Date.UTC(2026, 10, 1) + offset })
    const made = conversationRows(record, { topic: 'cluster-test', partition: 0, offset, timestampMs: 0 })
    for (const table of tableNames) (all[table] as unknown[]).push(...(made[table] as unknown[]))
  })
  return all
}

const count = async (client: ClickHouseClient, query: string) =>
  Number((await (await client.query({ query, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n)

describe.skipIf(notRunBecause !== undefined)(`cluster mode on Keeper and two shards (${image})`, () => {
  let network: StartedNetwork | undefined
  const containers: StartedTestContainer[] = []
  let client: ClickHouseClient
  const written = rows()
  // The base tables the worker writes, and the rollup the feed's views fill on each shard.
  const stored = [...tableNames.filter((table) => table !== 'agent_latency_feed'), 'agent_latency_minute']

  beforeAll(async () => {
    const { GenericContainer, Network, Wait } = await import('testcontainers')
    network = await new Network().start()
    containers.push(
      await new GenericContainer(image)
        .withNetwork(network)
        .withNetworkAliases('clickhouse-keeper')
        .withEntrypoint(['clickhouse', 'keeper', '--config-file=/etc/clickhouse-keeper/keeper.xml'])
        .withCopyFilesToContainer([
          { source: config('keeper.xml'), target: '/etc/clickhouse-keeper/keeper.xml' },
        ])
        .withWaitStrategy(Wait.forListeningPorts())
        .withExposedPorts(9181)
        .start(),
    )
    for (const shard of [1, 2])
      containers.push(
        await new GenericContainer(image)
          .withNetwork(network)
          .withNetworkAliases(`clickhouse-shard${shard}`)
          .withEnvironment(user)
          .withCopyFilesToContainer([
            { source: config('cluster.xml'), target: '/etc/clickhouse-server/config.d/cluster.xml' },
            {
              source: config(`macros-shard${shard}.xml`),
              target: '/etc/clickhouse-server/config.d/macros.xml',
            },
            {
              source: config('query-profile.xml'),
              target: '/etc/clickhouse-server/users.d/query-profile.xml',
            },
          ])
          .withExposedPorts(8123)
          .withWaitStrategy(Wait.forHttp('/ping', 8123).forStatusCode(200))
          .start(),
      )
    const shard1 = containers[1]!
    client = createClickHouse({
      CLICKHOUSE_URL: `http://${shard1.getHost()}:${shard1.getMappedPort(8123)}`,
      ...user,
      CLICKHOUSE_DATA_DIR: '/nonexistent',
    })
    await runMigrations(client, database, loadMigrations(database), cluster)
    await insertTableRows(client, database, written, 'cluster-test-1')
    // The same write again (a retry after a crash): every shard drops the part it already has.
    await insertTableRows(client, database, written, 'cluster-test-1')
    // Under the same token with other content (half of each table's rows): dropped too, which only
    // the token reaching the shards explains (a block's content hash would differ).
    const half = emptyTableRows()
    for (const table of tableNames)
      (half[table] as unknown[]).push(...(written[table] as unknown[]).filter((_, index) => index % 2 === 0))
    await insertTableRows(client, database, half, 'cluster-test-1')
  })

  afterAll(async () => {
    await client?.close()
    for (const container of containers.reverse()) await container.stop()
    await network?.stop()
  })

  it('stores every row once, a write repeated under its token included, even with other content', async () => {
    for (const table of tableNames.filter((table) => table !== 'agent_latency_feed')) {
      const want = (written[table] as unknown[]).length
      expect(want, table).toBeGreaterThan(0)
      expect(await count(client, `SELECT count() AS n FROM ${database}.${table}`), table).toBe(want)
    }
    expect(await count(client, `SELECT count() AS n FROM ${database}.agent_latency_minute`)).toBe(
      written.agent_latency_feed.length,
    )
  })

  it("keeps each conversation's rows in every table on one shard, and uses both shards", async () => {
    const shardOf = new Map<string, number>()
    for (const table of stored) {
      const result = await client.query({
        query: `SELECT session_id, groupUniqArray(_shard_num) AS shards FROM ${database}.${table} GROUP BY session_id`,
        format: 'JSONEachRow',
      })
      for (const { session_id, shards } of await result.json<{ session_id: string; shards: number[] }>()) {
        expect(shards, `${table}: ${session_id}`).toHaveLength(1)
        expect(shardOf.get(session_id) ?? shards[0], `${table}: ${session_id}`).toBe(shards[0])
        shardOf.set(session_id, shards[0]!)
      }
    }
    expect(new Set(shardOf.values())).toEqual(new Set([1, 2]))
  })

  it('collapses a re-delivery on its shard: another token doubles the rows, FINAL shows each once', async () => {
    await insertTableRows(client, database, written, 'cluster-test-redelivery')
    const table = `${database}.conversations`
    const conversations = written.conversations.length
    expect(await count(client, `SELECT count() AS n FROM ${table}`)).toBe(2 * conversations)
    expect(await count(client, `SELECT count() AS n FROM ${table} FINAL`)).toBe(conversations)
  })

  it("answers the views, and users' joins of two Distributed tables (query-profile.xml), over the cluster", async () => {
    expect(
      await count(client, `SELECT count() AS n FROM ${database}.agent_latency_per_minute`),
    ).toBeGreaterThan(0)
    expect(
      await count(
        client,
        `SELECT count() AS n FROM ${database}.conversation_items AS item FINAL
          JOIN ${database}.conversations AS conversation FINAL USING session_id`,
      ),
    ).toBe(written.conversation_items.length)
    expect(await count(client, `SELECT sum(calls) AS n FROM ${database}.campaigns`)).toBe(
      written.campaign_items.length,
    )
  })
})

describe.runIf(notRunBecause !== undefined)('cluster mode on Keeper and two shards', () => {
  it.skip(`NOT RUN: ${notRunBecause}`, () => {})
})
