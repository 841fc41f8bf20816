import { readFileSync } from 'node:fs'
import { splitStatements } from '../../core/clickhouse/clickhouse-migrations.ts'
import { recomputeSelect } from '../../core/clickhouse/latency-hour-rollup.ts'
import { eventAvroSchema } from '../../core/event/event-schema.ts'
import { landingColumns } from './landing-columns.ts'

// The ClickHouse-side route's SQL (views.sql) with its placeholders filled: the landing table as a
// Null table the message bytes are INSERTed into, or as ClickHouse's own Kafka consumer. Either
// way the same views flatten each message into the tables of the project's migrations, which must
// already exist in `database`.
export type Landing =
  | { kind: 'insert' }
  | {
      kind: 'kafka'
      brokers: string
      topic: string
      group: string
      registryUrl: string
      /** The best measured settings: 1000 and 500 ms. */
      maxBlockSize: number
      flushIntervalMs: number
    }

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`

function landingEngine(landing: Landing): string {
  if (landing.kind === 'insert') return 'Null'
  return `Kafka SETTINGS
    kafka_broker_list = ${quote(landing.brokers)},
    kafka_topic_list = ${quote(landing.topic)},
    kafka_group_name = ${quote(landing.group)},
    kafka_format = 'AvroConfluent',
    format_avro_schema_registry_url = ${quote(landing.registryUrl)},
    kafka_max_block_size = ${landing.maxBlockSize},
    kafka_flush_interval_ms = ${landing.flushIntervalMs}`
}

/** How long a touched agent-hour stays due after a recompute of the hour rollup began (views.sql). */
const hourTouchedMarginSeconds = 10

/**
 * The agent-hours the hour rollup's refreshable view recomputes: those that ended and were noted in
 * agent_latency_hour_touched after their own last recompute began (their newest version, the
 * server's clock in ns), less the margin; never recomputed (0: join_use_nulls is off), every noted
 * one that ended.
 */
const touchedSinceLastRecompute = (database: string) => (hourOf: string) =>
  `(agent_id, ${hourOf}) IN (
    SELECT noted.agent_id, noted.hour
    FROM (SELECT agent_id, hour, max(touched_at) AS last_noted FROM ${database}.agent_latency_hour_touched
      WHERE hour + INTERVAL 1 HOUR <= now() GROUP BY agent_id, hour) AS noted
    LEFT JOIN (SELECT agent_id, hour, max(version) AS recomputed FROM ${database}.agent_latency_hour
      GROUP BY agent_id, hour) AS rolled ON noted.agent_id = rolled.agent_id AND noted.hour = rolled.hour
    WHERE toUnixTimestamp64Nano(noted.last_noted) + ${hourTouchedMarginSeconds * 1e9} > rolled.recomputed)`

/**
 * The statements, in order, for `database`, which runMigrations has migrated (the views feed
 * the tables and feeds of the latest migrations).
 */
export function clickhouseSideStatements(database: string, landing: Landing): string[] {
  const sql = readFileSync(new URL('./views.sql', import.meta.url), 'utf8')
  const kafka = landing.kind === 'kafka'
  const values: Record<string, string> = {
    database,
    landing_columns: landingColumns(eventAvroSchema),
    landing_engine: landingEngine(landing),
    kafka_topic: kafka ? '_topic' : "''",
    kafka_partition: kafka ? 'toUInt32(_partition)' : '0',
    kafka_offset: kafka ? 'toUInt64(_offset)' : '0',
    kafka_timestamp_ms: kafka ? 'toUInt64(ifNull(toUnixTimestamp64Milli(_timestamp_ms), 0))' : '0',
    hour_recompute: recomputeSelect(database, touchedSinceLastRecompute(database)),
  }
  return splitStatements(sql).map((statement) =>
    statement.replaceAll(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole),
  )
}

/**
 * INSERT of a file of concatenated Confluent-framed Avro messages into the landing table. The
 * token names the batch: the tables keep a deduplication window, and chDB keeps the last insert's
 * token for its session, so an insert without its own token after one with a token is dropped.
 */
export function landingInsert(database: string, file: string, registryUrl: string, token: string): string {
  return `INSERT INTO ${database}.conversation_landing FROM INFILE ${quote(file)}
    SETTINGS format_avro_schema_registry_url = ${quote(registryUrl)},
      insert_deduplication_token = ${quote(token)},
      deduplicate_blocks_in_dependent_materialized_views = 1
    FORMAT AvroConfluent`
}
