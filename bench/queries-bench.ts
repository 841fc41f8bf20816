import { mkdirSync } from 'node:fs'
import { homedir, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Session } from 'chdb'
import { callFigures } from '../cli/versions/call-figures.ts'
import { parseJsonEachRow, readCallValues } from '../cli/versions/versions-queries.ts'
import { versionsReport } from '../cli/versions/versions-report.ts'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import { runReadOnlyQuery } from '../core/clickhouse/clickhouse-read-only.ts'
import { expandPanelSql } from '../dashboards/src/grafana-macros.ts'
import { database as shippedDatabase } from '../dashboards/src/panel-sql.ts'
import { overviewQueries, overviewSql } from '../dev-server/overview/overview-queries.ts'
import {
  alertRuleQueries,
  clickhousePanelQueries,
  clickhouseVariableQueries,
  customVariables,
  provisionedDashboards,
  variableNames,
} from '../test/observability/provisioned-queries.ts'
import { inDatabase, macroContext } from './queries/dashboard-queries.ts'
import { besideLimit, bytes, count, markdownTable, median } from './queries/query-report.ts'
import { type ScaledDatabase, scaledDatabase } from './queries/scaled-database.ts'
import { type TimeWindow, timeWindows } from './queries/time-windows.ts'

// `npm run bench:queries`: the read side over months of data (#23). Builds S = 200,000 and
// M = 1,000,000 conversations (L = 3,000,000 with --large) over 30 days — a seed through the
// worker's transform and Native insert, scaled inside ClickHouse (bench/queries/) — in the embedded
// engine with the project's settings, once (reused; --rebuild builds again), then times every
// ClickHouse query of the provisioned dashboards (variables and panels; "All" selected, flagged
// values left out, Grafana's macros expanded) over 24 h / 7 d / 30 d and the overview page's
// queries over the 24 h it shows, median of 3, with the rows and bytes each read, and prints bytes
// on disk per table and per conversation. Each figure beside its limit (docs: bench/results/queries.md).
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: 'S,M' },
    large: { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    seed: { type: 'string', default: '5000' },
    'data-dir': { type: 'string', default: join(homedir(), '.cache/voice-analytics/bench-queries') },
    runs: { type: 'string', default: '3' },
    // Build (or migrate) and print the sizes on disk, without timing the queries.
    'storage-only': { type: 'boolean', default: false },
    // Time or measure a reused database as it was built, without the migrations added since.
    'keep-schema': { type: 'boolean', default: false },
  },
})
const sizes: Record<string, number> = { T: 20_000, S: 200_000, M: 1_000_000, L: 3_000_000 }
const chosen = [...new Set([...args.sizes.split(','), ...(args.large ? ['L'] : [])])]
for (const size of chosen) if (!(size in sizes)) throw new Error(`unknown size ${size} (S, M, L)`)
const runs = Number(args.runs)
const panelLimitMs = (size: string) => (size === 'L' ? 3000 : 1000)
const bytesPerConversationLimit = 2048

const dataDir = args['data-dir']
mkdirSync(dataDir, { recursive: true })
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`)
const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
// Joins the engine the client started (its settings): its results carry rows and bytes read.
const session = new Session(dataDir)

interface Timing {
  ms: number
  rowsRead: number
  bytesRead: number
}

/** The engine's counters of rows and bytes selected from tables (no query_log in chDB; nothing else queries meanwhile). */
async function selected(): Promise<{ rows: number; bytes: number }> {
  const counters = (
    (
      await session.queryAsync(
        "SELECT event, value FROM system.events WHERE event IN ('SelectedRows', 'SelectedBytes')",
        { format: 'JSON' },
      )
    ).json() as { data: { event: string; value: string }[] }
  ).data
  const value = (event: string) => Number(counters.find((counter) => counter.event === event)?.value ?? 0)
  return { rows: value('SelectedRows'), bytes: value('SelectedBytes') }
}

async function timed(sql: string): Promise<Timing> {
  const samples: Timing[] = []
  for (let run = 0; run < runs; run++) {
    const before = await selected()
    const started = performance.now()
    await session.queryAsync(sql, { format: 'JSONCompact' })
    const ms = performance.now() - started
    const after = await selected()
    samples.push({ ms, rowsRead: after.rows - before.rows, bytesRead: after.bytes - before.bytes })
  }
  return {
    ms: median(samples.map((sample) => sample.ms)),
    rowsRead: samples[0]!.rowsRead,
    bytesRead: samples[0]!.bytesRead,
  }
}

async function jsonRows<T>(sql: string): Promise<T[]> {
  return ((await session.queryAsync(sql, { format: 'JSON' })).json() as { data: T[] }).data
}

interface QueryTimes {
  where: string
  times: Map<TimeWindow['name'], Timing>
}

async function timeDashboards(built: ScaledDatabase): Promise<QueryTimes[]> {
  const results = new Map<string, QueryTimes>()
  const record = (where: string, window: TimeWindow['name'], timing: Timing) => {
    log(
      `${built.database} ${window}: ${where}: ${Math.round(timing.ms)} ms, ${count(timing.rowsRead)} rows read`,
    )
    const entry = results.get(where) ?? { where, times: new Map() }
    entry.times.set(window, timing)
    results.set(where, entry)
  }
  const windows = timeWindows(new Date(built.end))
  const local = (sql: string) => inDatabase(sql, shippedDatabase, built.database)
  for (const dashboard of provisionedDashboards()) {
    const panels = clickhousePanelQueries(dashboard)
    if (panels.length === 0) continue
    for (const window of windows) {
      const context = macroContext(window, {
        names: variableNames(dashboard),
        custom: customVariables(dashboard),
      })
      const options: Record<string, string[]> = {}
      for (const variable of clickhouseVariableQueries(dashboard)) {
        const sql = local(expandPanelSql(variable.rawSql, context, options))
        record(variable.where, window.name, await timed(sql))
        options[variable.name] = (await jsonRows<Record<string, unknown>>(sql)).map((row) =>
          String(Object.values(row)[0]),
        )
      }
      for (const panel of panels) {
        const sql = local(expandPanelSql(panel.rawSql, context, options))
        record(
          panel.where,
          window.name,
          await timed(sql).catch((error: Error) => {
            throw new Error(`${panel.where}: ${error.message}\n${sql}`)
          }),
        )
      }
      log(`${built.database}: ${dashboard.file} over ${window.name}`)
    }
  }
  // the Grafana rules on ClickHouse as evaluated at the data's end (every minute, each query over
  // its relative range), and `voice-analytics versions` over every agent (its default 7-day windows)
  const end = new Date(built.end)
  for (const rule of alertRuleQueries()) {
    const range = {
      from: new Date(end.getTime() - rule.from * 1000),
      to: end,
      intervalSeconds: 60,
      variables: {},
    }
    record(`alert rule / ${rule.where}`, '24 h', await timed(local(expandPanelSql(rule.rawSql, range, {}))))
  }
  // as the command reads the data directory: read-only, every table as with FINAL
  const read = async (sql: string) =>
    parseJsonEachRow(await runReadOnlyQuery(client, { sql, format: 'JSONEachRow', final: true }))
  const versionRuns: number[] = []
  let changes = 0
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const reports = await versionsReport(read, built.database, { maxWindowMs: 7 * 86_400_000 })
    versionRuns.push(performance.now() - started)
    changes = reports.reduce((sum, agent) => sum + agent.changes.length, 0)
  }
  const versionsTiming = { ms: median(versionRuns), rowsRead: 0, bytesRead: 0 }
  log(`${built.database}: versions CLI ${Math.round(versionsTiming.ms)} ms, ${changes} changes`)
  record(`cli / voice-analytics versions (all agents, ${changes} changes)`, '30 d', versionsTiming)
  // what each listed change adds: the busiest agent's calls 7 days either side of a change 7 days
  // before the end, read and summarised with their intervals (bootstrap included)
  const [busiest] = await jsonRows<{ agent_id: string; calls: string }>(
    `SELECT agent_id, toString(count()) AS calls FROM ${built.database}.conversations GROUP BY agent_id ORDER BY count() DESC LIMIT 1`,
  )
  const changeMs = end.getTime() - 7 * 86_400_000
  const changeRuns: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const calls = await readCallValues(
      read,
      built.database,
      busiest!.agent_id,
      changeMs - 7 * 86_400_000,
      end.getTime(),
    )
    callFigures(calls.filter((call) => call.timeMs < changeMs))
    callFigures(calls.filter((call) => call.timeMs >= changeMs))
    changeRuns.push(performance.now() - started)
  }
  record(
    `cli / voice-analytics versions, one change (${count(Number(busiest!.calls))} calls of the busiest agent in 30 d, 7 d either side)`,
    '30 d',
    { ms: median(changeRuns), rowsRead: 0, bytesRead: 0 },
  )

  const day = timeWindows(new Date(built.end))[0]!
  for (const name of Object.keys(overviewQueries) as (keyof typeof overviewQueries)[])
    record(
      `overview / ${overviewQueries[name].title}`,
      day.name,
      await timed(local(overviewSql(name, new Date(built.end)))),
    )
  return [...results.values()]
}

async function storage(built: ScaledDatabase): Promise<string> {
  const tables = await jsonRows<{ table: string; rows: string; parts: string; bytes: string }>(
    `SELECT table, toString(sum(rows)) AS rows, toString(count()) AS parts, toString(sum(bytes_on_disk)) AS bytes
      FROM system.parts WHERE database = '${built.database}' AND active GROUP BY table ORDER BY sum(bytes_on_disk) DESC`,
  )
  const total = tables.reduce((sum, table) => sum + Number(table.bytes), 0)
  const perConversation = (value: number) => value / built.conversations
  const rows = tables.map((table) => [
    table.table,
    count(Number(table.rows)),
    table.parts,
    bytes(Number(table.bytes)),
    `${Math.round(perConversation(Number(table.bytes)))} B`,
  ])
  rows.push([
    '**all**',
    '',
    '',
    bytes(total),
    besideLimit(perConversation(total), bytesPerConversationLimit, 'B'),
  ])
  const columns = await jsonRows<{
    table: string
    name: string
    type: string
    compressed: string
    ratio: number
  }>(
    `SELECT table, name, type, toString(data_compressed_bytes) AS compressed,
        round(data_uncompressed_bytes / greatest(data_compressed_bytes, 1), 1) AS ratio
      FROM system.columns WHERE database = '${built.database}' AND data_compressed_bytes > 0
      ORDER BY data_compressed_bytes DESC LIMIT 25`,
  )
  return [
    markdownTable(['table', 'rows', 'active parts', 'on disk', 'per conversation'], rows),
    '',
    'The 25 largest columns (compressed):',
    '',
    markdownTable(
      ['table', 'column', 'type', 'per conversation', 'compression'],
      columns.map((column) => [
        column.table,
        column.name,
        `\`${column.type}\``,
        `${Math.round(perConversation(Number(column.compressed)))} B`,
        `${column.ratio}×`,
      ]),
    ),
  ].join('\n')
}

function timingReport(size: string, times: QueryTimes[]): string {
  const limit = panelLimitMs(size)
  const cell = (timing: Timing | undefined) => (timing ? Math.round(timing.ms).toLocaleString('en-US') : '—')
  const longest = (entry: QueryTimes) => Math.max(...[...entry.times.values()].map((timing) => timing.ms))
  const sorted = [...times].sort((a, b) => longest(b) - longest(a))
  const rows = sorted.map((entry) => {
    const last = entry.times.get('30 d') ?? entry.times.get('24 h')!
    return [
      entry.where,
      cell(entry.times.get('24 h')),
      cell(entry.times.get('7 d')),
      cell(entry.times.get('30 d')),
      besideLimit(longest(entry), limit, 'ms'),
      count(last.rowsRead),
      bytes(last.bytesRead),
    ]
  })
  const over = (window: TimeWindow['name']) =>
    times.filter((entry) => (entry.times.get(window)?.ms ?? 0) > limit).length
  const dashboardSum = (file: string, window: TimeWindow['name']) =>
    times
      .filter((entry) => entry.where.startsWith(`${file} /`))
      .reduce((sum, entry) => sum + (entry.times.get(window)?.ms ?? 0), 0)
  const sums = provisionedDashboards()
    .filter((dashboard) => clickhousePanelQueries(dashboard).length > 0)
    .map((dashboard) => [
      dashboard.file,
      ...(['24 h', '7 d', '30 d'] as const).map(
        (w) => `${(dashboardSum(dashboard.file, w) / 1000).toFixed(1)} s`,
      ),
    ])
  return [
    `Queries over ${limit} ms: ${over('24 h')} at 24 h, ${over('7 d')} at 7 d, ${over('30 d')} at 30 d, of ${times.length}.`,
    '',
    markdownTable(
      [
        'query (ms, median of 3)',
        '24 h',
        '7 d',
        '30 d',
        'slowest vs limit',
        'rows read (widest)',
        'bytes read (widest)',
      ],
      rows,
    ),
    '',
    'One opening of each dashboard (its variables and panels, one after another):',
    '',
    markdownTable(['dashboard', '24 h', '7 d', '30 d'], sums),
  ].join('\n')
}

const started = Date.now()
const report: string[] = [
  `# Queries benchmark — ${new Date().toISOString().slice(0, 16)}Z, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} at start`,
]
for (const size of chosen) {
  const built = await scaledDatabase(client, session, `qbench_${size.toLowerCase()}`, sizes[size]!, {
    dataDir,
    seedConversations: Number(args.seed),
    rebuild: args.rebuild,
    keepSchema: args['keep-schema'],
    log,
  })
  log(
    `${built.database}: ${built.conversations} conversations ending ${built.end}, built in ${built.buildSeconds} s`,
  )
  report.push(
    '',
    `## ${size}: ${built.conversations.toLocaleString('en-US')} conversations over the 30 days to ${built.end.slice(0, 16)}Z`,
    '',
    `Built in ${built.buildSeconds} s (copies of ${built.seedConversations} seed conversations, merges settled)${(built.migrations ?? []).map((run) => `; migrated afterwards (${run.versions.join(', ')}) in ${run.seconds} s`).join('')}. Load before timing: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.`,
    '',
    await storage(built),
    ...(args['storage-only'] ? [] : ['', timingReport(size, await timeDashboards(built))]),
  )
  console.log(report.join('\n'))
  report.length = 0
}
console.log(
  `\nTotal ${((Date.now() - started) / 1000).toFixed(0)} s; load at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}.`,
)
session.close()
await client.close()
