import { database } from './panel-sql.ts'

// The latency regression rule (#32): is an agent's p95 end-to-end latency now worse than its own
// past, by more than a minimum effect that chance cannot explain? One row per agent whose samples
// are large enough to judge; its value is a lower confidence bound of the rise in seconds, which
// the rule compares with the minimum effect. The past is:
// - the previous version, when the agent's configuration fingerprint (migration 0019) changed in
//   the last `versionHours`: the previous version's turns in the `versionHours` before the change
//   against the new version's turns since the change, within the last `recentMinutes`; the label
//   `version_change` names both versions, when, and the p95 before;
// - otherwise the same `recentMinutes` of the week in the previous `baselineWeeks` weeks (traffic
//   and latency follow the hour of the week), with an empty `version_change`.
//
// The bounds are exact order statistics, distribution-free: among n turns sorted, the l-th is below
// the true q-quantile with probability ≥ 1 − α when l = floor(nq − z·sqrt(nq(1−q))) (the binomial
// count of turns below the quantile, by its normal approximation); the u-th above it when
// u = ceil(nq + z·sqrt(nq(1−q))) + 1. The rise's lower bound is the recent sample's lower bound
// minus the past's upper bound, each at one-sided z, so it holds with ≥ 1 − 2α. Turns of one call
// are treated as independent; the sample guard counts calls, and the bench measures the
// false-alarm rate this gives (bench/results/regressions.md).
export interface RegressionSettings {
  quantile: number
  /** One-sided normal quantile of each bound (1.96: 97.5 %). */
  z: number
  recentMinutes: number
  baselineWeeks: number
  versionHours: number
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
  return `((${column} >= ${end} - INTERVAL ${2 * s.versionHours} HOUR AND ${column} < ${end}) OR ${weeks.join(' OR ')})`
}

/** The l-th (lower) or u-th (upper) order statistic bound of the q-quantile of a sorted array. */
function orderBound(sorted: string, side: 'lower' | 'upper', s: RegressionSettings): string {
  const n = `length(${sorted})`
  const spread = `${s.z} * sqrt(${n} * ${s.quantile} * (1 - ${s.quantile}))`
  return side === 'lower'
    ? `${sorted}[toUInt64(greatest(1, floor(${n} * ${s.quantile} - ${spread})))]`
    : `${sorted}[toUInt64(ceil(${n} * ${s.quantile} + ${spread}) + 1)]`
}

/** Whether the upper bound's rank is within the sample (else there is no finite bound: no judgement). */
const upperBounded = (sorted: string, s: RegressionSettings) =>
  `ceil(length(${sorted}) * ${s.quantile} + ${s.z} * sqrt(length(${sorted}) * ${s.quantile} * (1 - ${s.quantile}))) + 1 <= length(${sorted})`

export function latencyRegressionSql(s: RegressionSettings): string {
  const recentStart = `${unix(end)} - ${s.recentMinutes * 60}`
  const versionStart = `${unix(end)} - ${s.versionHours * 3600}`
  const q = (sorted: string) => `${sorted}[toUInt64(greatest(1, ceil(length(${sorted}) * ${s.quantile})))]`
  return `
      SELECT agent, version_change, toFloat64(${orderBound('recent_e2e', 'lower', s)} - ${orderBound('past_e2e', 'upper', s)}) AS p95_rise_lower_bound_s
      FROM (
        SELECT agent,
          changed,
          arraySort(arrayMap(turn -> turn.2, recent)) AS recent_e2e,
          arraySort(if(changed, arrayMap(turn -> turn.2, previous), weekly_e2e)) AS past_e2e,
          length(arrayDistinct(arrayMap(turn -> turn.4, recent))) AS recent_calls,
          if(changed, length(arrayDistinct(arrayMap(turn -> turn.4, previous))), weekly_calls) AS past_calls,
          if(changed,
            concat(previous_version, ' -> ', current_version, ' at ',
              formatDateTime(toDateTime(current_since, 'UTC'), '%Y-%m-%d %H:%i UTC'),
              ', p95 before ', toString(round(${q('past_e2e')}, 2)), ' s over ', toString(past_calls), ' calls'),
            '') AS version_change
        FROM (
          SELECT agent, weekly_e2e, weekly_calls, current_version, current_since,
            -- the previous version: its turns in the versionHours before the current one began
            arrayFilter(turn -> turn.3 != current_version AND turn.3 != ''
              AND turn.1 < current_since AND turn.1 >= current_since - ${s.versionHours * 3600}, near) AS previous,
            current_version != '' AND current_since >= ${versionStart} AND length(previous) > 0 AS changed,
            arrayReverseSort(turn -> turn.1, previous)[1].3 AS previous_version,
            arrayFilter(turn -> turn.1 >= ${recentStart}
              AND (NOT changed OR (turn.3 = current_version AND turn.1 >= current_since)), near) AS recent
          FROM (
            SELECT agent, near, weekly_e2e, weekly_calls,
              arrayReverseSort(turn -> turn.1, arrayFilter(turn -> turn.3 != '', near))[1].3 AS current_version,
              -- when the current version first answered in the last 2 × versionHours
              arrayMin(arrayMap(turn -> turn.1, arrayFilter(turn -> turn.3 = current_version, near))) AS current_since
            FROM (
              SELECT agent,
                groupArrayIf((${unix('event_time')}, e2e, fingerprint, session_id), event_time >= ${end} - INTERVAL ${2 * s.versionHours} HOUR) AS near,
                groupArrayIf(e2e, event_time < ${end} - INTERVAL ${2 * s.versionHours} HOUR) AS weekly_e2e,
                uniqExactIf(session_id, event_time < ${end} - INTERVAL ${2 * s.versionHours} HOUR) AS weekly_calls
              FROM (
                SELECT conversation.agent AS agent, turn.event_time AS event_time, turn.session_id AS session_id,
                  toFloat64(turn.e2e_latency) AS e2e, conversation.fingerprint AS fingerprint
                FROM ${database}.conversation_items AS turn FINAL
                INNER JOIN (
                  SELECT agent_id, event_time, session_id, ifNull(agent_name, agent_id) AS agent,
                    ifNull(config_fingerprint, '') AS fingerprint
                  FROM ${database}.conversations FINAL
                  WHERE ${sampledTimes('event_time', s)}
                ) AS conversation USING (agent_id, event_time, session_id)
                WHERE ${sampledTimes('turn.event_time', s)}
                  AND turn.e2e_latency IS NOT NULL
                  AND empty(turn.metric_flags)
              )
              GROUP BY agent
            )
          )
        )
      )
      WHERE recent_calls >= ${s.minRecentCalls} AND past_calls >= ${s.minPastCalls}
        AND ${upperBounded('past_e2e', s)}`
}
