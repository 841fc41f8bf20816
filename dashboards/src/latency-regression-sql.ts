import { database } from './panel-sql.ts'
import { instructionVersions } from './version-changes-sql.ts'

// The latency regression rule (#32): is an agent's median or p95 end-to-end latency now worse than
// its own past by more than a minimum effect δ, beyond what chance explains? One row per agent whose
// samples are large enough to judge. The past is:
// - the previous version, when the agent's instructions (its System message, normalised: the
//   `instructions` of agent_versions, migration 0019) changed in the last `versionHours`: the
//   previous version's turns in the `versionHours` before the change against the new version's
//   turns since the change, within the last `recentMinutes`; the label `version_change` names both
//   versions by their commonest configuration fingerprint, when, and the quantiles before;
// - otherwise the same `recentMinutes` of the week in the previous `baselineWeeks` weeks (traffic
//   and latency follow the hour of the week), with an empty `version_change`.
//
// The test, per quantile q: the new q-quantile exceeds the old one by more than δ exactly when more
// than 1 − q of the new turns are slower than the old quantile + δ. The old quantile is taken at its
// upper confidence bound, an exact order statistic (among n turns sorted, the one at rank
// ceil(nq + z·sqrt(nq(1−q))) + 1 is above the true quantile with probability ≥ 1 − α); the share of
// recent turns slower than it + δ gets a Wilson lower bound at the same z. The value is the largest
// excess of that bound over 1 − q: above 0 it excludes a rise of δ or less. With z = 2.24 (α = 1.25 %)
// the four bounds hold together with ≥ 95 %. The median catches a change that slows every answer,
// the p95 one that slows the slow ones; counting is far more sensitive than comparing two quantile
// intervals (a 300 ms rise shows within 30 minutes at 100 calls an hour). Turns of one call are
// treated as independent; the sample guard counts calls, and the bench measures the false-alarm rate
// this gives (bench/results/regressions.md).
export interface RegressionSettings {
  /** The quantiles judged (0.5 and 0.95): a rise of any of them fires. */
  quantiles: number[]
  /** One-sided normal quantile of each bound (1.96: 97.5 %). */
  z: number
  recentMinutes: number
  baselineWeeks: number
  versionHours: number
  /** δ: the rise in seconds that does not count as a regression. */
  minEffectSeconds: number
  minRecentCalls: number
  minPastCalls: number
}

const end = '$__toTime'
const minutes = (n: number) => `INTERVAL ${n} MINUTE`
const unix = (time: string) => `toUInt32(${time})`

/** The turn times the rule reads: the last 2 × versionHours, and the same recent minutes of past weeks. */
function sampledTimes(column: string, s: RegressionSettings): string {
  const weeks = Array.from({ length: s.baselineWeeks }, (_, index) => {
    const weekEnd = `${end} - INTERVAL ${7 * (index + 1)} DAY`
    return `(${column} >= ${weekEnd} - ${minutes(s.recentMinutes)} AND ${column} < ${weekEnd})`
  })
  const near = `(${column} >= ${end} - INTERVAL ${2 * s.versionHours} HOUR AND ${column} < ${end})`
  return `(${[near, ...weeks].join(' OR ')})`
}

/** The rank of the upper confidence bound of the q-quantile among n sorted values. */
const upperRank = (n: string, q: number, z: number) =>
  `ceil(${n} * ${q} + ${z} * sqrt(${n} * ${q} * (1 - ${q}))) + 1`
const percentile = (q: number) => `p${Math.round(q * 100)}`

/** The Wilson score interval's lower bound of a proportion of n. */
const wilsonLower = (p: string, n: string, z: number) =>
  `(${p} + ${z * z} / (2 * ${n}) - ${z} * sqrt(${p} * (1 - ${p}) / ${n} + ${z * z} / (4 * ${n} * ${n}))) / (1 + ${z * z} / ${n})`

/**
 * What a query of the rule returns per agent (each query one number: Grafana alerts on one numeric
 * column): the condition (the largest excess share), or a figure of the notification — the
 * q-quantile of the turns judged now ("after": the new version's since the change, else the last
 * recentMinutes). A figure query needs no past and judges no sample guard of the past, so it reads
 * less and returns a row for every agent the condition does (Grafana matches the two by labels).
 */
export type RegressionOutput = { kind: 'excess' } | { kind: 'after'; quantile: number }

export function latencyRegressionSql(
  s: RegressionSettings,
  output: RegressionOutput = { kind: 'excess' },
): string {
  const judged = output.kind === 'excess'
  // the figures of "now" need no weekly past: only the last 2 × versionHours are read
  const sampled = judged ? s : { ...s, baselineWeeks: 0 }
  const recentStart = `${unix(end)} - ${s.recentMinutes * 60}`
  const versionStart = `${unix(end)} - ${s.versionHours * 3600}`
  const at = (sorted: string, q: number) => `${sorted}[toUInt64(greatest(1, ceil(length(${sorted}) * ${q})))]`
  const top = Math.max(...s.quantiles)
  // per quantile: the share of recent turns slower than the past's upper bound + δ, its Wilson
  // lower bound, and how far that is above the share the quantile leaves above it (1 − q)
  const excess = s.quantiles.map(
    (q) =>
      `${wilsonLower(`arrayCount(e2e -> e2e > past_e2e[toUInt64(${upperRank('length(past_e2e)', q, s.z)})] + ${s.minEffectSeconds}, recent_e2e) / length(recent_e2e)`, 'length(recent_e2e)', s.z)} - ${1 - q}`,
  )
  return `
      SELECT agent, version_change, ${judged ? `toFloat64(greatest(${excess.join(', ')})) AS excess_slower_share` : `toFloat64(${at('recent_e2e', output.quantile)}) AS e2e_${percentile(output.quantile)}_after`}
      FROM (
        SELECT agent, version_change, recent_e2e, past_e2e
        FROM (
        SELECT agent,
          changed,
          current_fingerprint,
          previous_version,
          arraySort(arrayMap(turn -> turn.2, recent)) AS recent_e2e,
          arraySort(if(changed, arrayMap(turn -> turn.2, previous), weekly_e2e)) AS past_e2e,
          length(arrayDistinct(arrayMap(turn -> turn.4, recent))) AS recent_calls,
          if(changed, length(arrayDistinct(arrayMap(turn -> turn.4, previous))), weekly_calls) AS past_calls,
          if(changed,
            concat(previous_version, ' -> ', current_fingerprint, ' at ',
              formatDateTime(toDateTime(current_since, 'UTC'), '%Y-%m-%d %H:%i UTC'),
              ', ', ${s.quantiles.map((q) => `'${percentile(q)} ', toString(round(${at('past_e2e', q)}, 2)), ' s'`).join(", ', ', ")}, ' before over ', toString(past_calls), ' calls'),
            '') AS version_change
        FROM (
          SELECT agent, weekly_e2e, weekly_calls, current_version, current_since,
            -- the previous version: its turns in the versionHours before the current one began
            arrayFilter(turn -> turn.3 != current_version AND turn.3 != ''
              AND turn.1 < current_since AND turn.1 >= current_since - ${s.versionHours * 3600}, near) AS previous,
            current_version != '' AND current_since >= ${versionStart} AND length(previous) > 0 AS changed,
            -- named by their commonest fingerprint, as \`voice-analytics versions\` lists them
            arrayReduce('topK(1)', arrayMap(turn -> turn.5, previous))[1] AS previous_version,
            arrayReduce('topK(1)', arrayMap(turn -> turn.5, recent))[1] AS current_fingerprint,
            arrayFilter(turn -> turn.1 >= ${recentStart}
              AND (NOT changed OR (turn.3 = current_version AND turn.1 >= current_since)), near) AS recent
          FROM (
            SELECT agent, near, weekly_e2e, weekly_calls,
              arrayReverseSort(turn -> turn.1, arrayFilter(turn -> turn.3 != '', near))[1].3 AS current_version,
              -- when the current version first answered in the last 2 × versionHours
              arrayMin(arrayMap(turn -> turn.1, arrayFilter(turn -> turn.3 = current_version, near))) AS current_since
            FROM (
              SELECT agent,
                groupArrayIf((${unix('event_time')}, e2e, prompt, session_id, fingerprint), event_time >= ${end} - INTERVAL ${2 * s.versionHours} HOUR) AS near,
                groupArrayIf(e2e, event_time < ${end} - INTERVAL ${2 * s.versionHours} HOUR) AS weekly_e2e,
                uniqExactIf(session_id, event_time < ${end} - INTERVAL ${2 * s.versionHours} HOUR) AS weekly_calls
              FROM (
                SELECT conversation.agent AS agent, turn.event_time AS event_time, turn.session_id AS session_id,
                  toFloat64(turn.e2e_latency) AS e2e, conversation.prompt AS prompt, conversation.fingerprint AS fingerprint
                FROM ${database}.conversation_items AS turn FINAL
                INNER JOIN (
                  SELECT agent_id, event_time, session_id, ifNull(agent_name, agent_id) AS agent,
                    ifNull(config_fingerprint, '') AS fingerprint, version.prompt AS prompt
                  FROM ${database}.conversations FINAL
                  LEFT JOIN (
                    ${instructionVersions}
                  ) AS version USING (agent_id, config_fingerprint)
                  WHERE ${sampledTimes('event_time', sampled)}
                ) AS conversation USING (agent_id, event_time, session_id)
                WHERE ${sampledTimes('turn.event_time', sampled)}
                  AND turn.e2e_latency IS NOT NULL
                  AND empty(turn.metric_flags)
              )
              GROUP BY agent
            )
          )
        )
      )
        WHERE recent_calls >= ${s.minRecentCalls}${
          judged
            ? ` AND past_calls >= ${s.minPastCalls}
          -- an upper bound within the sample (else none: no judgement)
          AND ${upperRank('length(past_e2e)', top, s.z)} <= length(past_e2e)`
            : ''
        }
      )`
}
