import { AnnotationQueryBuilder } from '@grafana/grafana-foundation-sdk/dashboard'
import { filters } from './clickhouse-filters.ts'
import { clickhouseDatasource, tableSql } from './grafana-queries.ts'
import { database } from './panel-sql.ts'

// Agent changes (#32) on the dashboards: an agent's version is the normalised instructions of its
// System message (agent_versions.instructions, migration 0019), named by the commonest configuration
// fingerprint of its calls, as `voice-analytics versions` names it; a change is every version of an
// agent in the time range but its first there, at the first call that ran it. Figures per version
// over its calls in the range (the median of the calls' e2e p50, the p95 of their e2e p95, failed
// rooms, calls with dead air); `voice-analytics versions` gives them with confidence intervals.

/**
 * The instruction version (\`prompt\`) of each agent's configuration fingerprint: the hash of its
 * normalised System instructions, the version of the Changes table, the annotations and the
 * regression rule.
 */
export const instructionVersions = `SELECT agent_id, config_fingerprint, toString(cityHash64(instructions)) AS prompt
      FROM ${database}.agent_versions FINAL`

/** One row per version of each agent in the range: when it started, its calls and its figures. */
const versionRows = (figures: string[]) => `
    SELECT ifNull(any(conversation.agent_name), conversation.agent_id) AS agent, conversation.agent_id AS agent_id,
      version.prompt AS prompt, min(conversation.event_time) AS started, count() AS calls,
      topK(1)(conversation.config_fingerprint)[1] AS fingerprint${figures.map((figure) => `,\n      ${figure}`).join('')}
    FROM ${database}.conversations AS conversation FINAL
    INNER JOIN (
      ${instructionVersions}
    ) AS version USING (agent_id, config_fingerprint)
    WHERE $__timeFilter(event_time)
      AND ${filters.conversations}
    GROUP BY conversation.agent_id, version.prompt`

/** Each agent's versions in order; a change is every one but the first (nth > 1), after previous_fingerprint. */
const byAgent =
  'WINDOW agent_versions AS (PARTITION BY agent_id ORDER BY started ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)'

const changeFigures = {
  e2e_p50_ms: 'round(quantileExact(0.5)(conversation.e2e_latency_p50) * 1000)',
  e2e_p95_ms: 'round(quantileExact(0.95)(conversation.e2e_latency_p95) * 1000)',
  failed_share: 'round(countIf(conversation.room_failed) / count(), 3)',
  dead_air_share:
    'round(countIf(conversation.dead_air_count > 0) / countIf(conversation.agent_talk_ms IS NOT NULL), 3)',
}
const figureNames = ['calls', ...Object.keys(changeFigures)]

const versionsInRange = `
  SELECT agent, started, fingerprint, ${figureNames.join(', ')},
    row_number() OVER agent_versions AS nth,
    lagInFrame(fingerprint) OVER agent_versions AS previous_fingerprint,
    ${figureNames.map((name) => `lagInFrame(${name}) OVER agent_versions AS previous_${name}`).join(',\n    ')}
  FROM (${versionRows(Object.entries(changeFigures).map(([name, sql]) => `${sql} AS ${name}`))})
  ${byAgent}`

/** The Changes table: each change in the range with the figures of the version before and after. */
export const versionChangesTable = `
  SELECT started AS changed_at, agent, concat(previous_fingerprint, ' -> ', fingerprint) AS change,
    previous_calls AS calls_before, calls AS calls_after,
    previous_e2e_p50_ms AS e2e_p50_ms_before, e2e_p50_ms AS e2e_p50_ms_after,
    previous_e2e_p95_ms AS e2e_p95_ms_before, e2e_p95_ms AS e2e_p95_ms_after,
    previous_failed_share AS failed_share_before, failed_share AS failed_share_after,
    previous_dead_air_share AS dead_air_share_before, dead_air_share AS dead_air_share_after
  FROM (${versionsInRange})
  WHERE nth > 1
  ORDER BY changed_at DESC
  LIMIT 200`

/** The changes as Grafana annotations on a dashboard's time series (time, text, tags). */
export const versionChangeAnnotationSql = `
  SELECT started AS time, concat(agent, ': ', previous_fingerprint, ' -> ', fingerprint) AS text, 'agent change' AS tags
  FROM (
    SELECT agent, started, fingerprint, row_number() OVER agent_versions AS nth,
      lagInFrame(fingerprint) OVER agent_versions AS previous_fingerprint
    FROM (${versionRows([])})
    ${byAgent}
  )
  WHERE nth > 1`

export const versionChangeAnnotation = () =>
  new AnnotationQueryBuilder()
    .name('Agent changes')
    .datasource(clickhouseDatasource)
    .enable(true)
    .iconColor('purple')
    .target(tableSql(versionChangeAnnotationSql))
