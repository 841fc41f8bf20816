import { DashboardBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard'
import { filters, variables } from './clickhouse-variables.ts'
import { continuationMark, database, tableSql, timeseriesSql } from './grafana-queries.ts'
import {
  conversationLatencyFrom,
  perTestRunTable,
  turnsHistogram,
  turnsQuantileMs,
} from './latency-by-choice.ts'
import { histogramCount } from './latency-histogram.ts'
import { pie, stat, table, timeseries } from './panels.ts'
import { passRate, passRateOverTime, testResultsFrom } from './shared-panel-sql.ts'

// Agent tests: automated test conversations (test_results, one row per test conversation of a
// test run). Pass rate = passed / evaluated; a test without test_eval_result is "not evaluated".
const from = testResultsFrom

export function agentTestsDashboard() {
  return new DashboardBuilder('Agent tests')
    .uid('voice-agent-tests')
    .description('Automated agent tests from ClickHouse: pass rates per test and run, reasons, status')
    .tags(['voice-analytics', 'tests'])
    .time({ from: 'now-7d', to: 'now' })
    .refresh('5m')
    .readonly()
    .withVariable(variables.source())
    .withVariable(variables.agent())
    .withVariable(variables.test_run())
    .withVariable(variables.include_flagged())
    .withRow(new RowBuilder('Overview'))
    .withPanel(
      stat('Test conversations', 'Test conversations in range.', [
        tableSql(`SELECT count() AS tests FROM ${from}`),
      ]),
    )
    .withPanel(
      stat('Test runs', 'Distinct test runs.', [
        tableSql(`SELECT uniqExact(test_run_id) AS runs FROM ${from}`),
      ]),
    )
    .withPanel(
      stat(
        'Pass rate',
        'Passed of evaluated tests.',
        [tableSql(`SELECT ${passRate} AS pass_rate FROM ${from}`)],
        'percentunit',
      ),
    )
    .withPanel(
      stat('Passed', 'Tests evaluated as successful.', [
        tableSql(`SELECT countIf(test_success) AS passed FROM ${from}`),
      ]),
    )
    .withPanel(
      stat('Failed', 'Tests evaluated as failed.', [
        tableSql(`SELECT countIf(test_success = false) AS failed FROM ${from}`),
      ]),
    )
    .withPanel(
      stat('Not evaluated', 'Tests without an evaluation result.', [
        tableSql(`SELECT countIf(test_success IS NULL) AS not_evaluated FROM ${from}`),
      ]),
    )
    .withRow(new RowBuilder('Pass rates'))
    .withPanel(
      table(
        'Pass rate per test run',
        'One row per test run, newest first.',
        [
          tableSql(`
          SELECT
            test_run_id,
            min(event_time) AS started,
            uniqExact(test_id) AS tests,
            count() AS conversations,
            countIf(test_success) AS passed,
            countIf(test_success = false) AS failed,
            countIf(test_success IS NULL) AS not_evaluated,
            round(${passRate}, 4) AS pass_rate
          FROM ${from}
          GROUP BY test_run_id
          ORDER BY started DESC
          LIMIT 100`),
        ],
        12,
      ),
    )
    .withPanel(
      table(
        'Pass rate per test',
        'One row per test: how often it passed, and its latest status and reasons.',
        [
          tableSql(`
          SELECT
            test_id,
            ifNull(any(agent_name), any(agent_id)) AS agent,
            uniqExact(test_run_id) AS runs,
            count() AS conversations,
            countIf(test_success) AS passed,
            countIf(test_success = false) AS failed,
            round(${passRate}, 4) AS pass_rate,
            argMax(ifNull(test_status, 'unknown'), event_time) AS latest_status,
            arrayStringConcat(argMax(test_reasons, event_time), ' | ') AS latest_reasons
          FROM ${from}
          GROUP BY test_id
          ORDER BY pass_rate ASC, conversations DESC
          LIMIT 200`),
        ],
        12,
      ),
    )
    .withPanel(
      timeseries(
        'Pass rate over time',
        'Passed of evaluated tests per interval.',
        [timeseriesSql(passRateOverTime)],
        { unit: 'percentunit', width: 24 },
      ),
    )
    .withRow(new RowBuilder('Latency and failures per test run'))
    .withPanel(perTestRunTable(filters.testResults))
    .withPanel(
      timeseries(
        'End-to-end latency of test conversations',
        'p50, p90 and p95 of end-to-end latency of the agent turns in test conversations, per interval; milliseconds.',
        [
          timeseriesSql(`
          SELECT
            $__timeInterval(event_time) AS time,
            ${turnsQuantileMs(0.5)} AS p50,
            ${turnsQuantileMs(0.9)} AS p90,
            ${turnsQuantileMs(0.95)} AS p95
          FROM ${conversationLatencyFrom(filters.testResults)}
            AND conversation.test_run_id IS NOT NULL
          GROUP BY time
          HAVING ${histogramCount(turnsHistogram())} > 0
          ORDER BY time`),
        ],
        { unit: 'ms', width: 24 },
      ),
    )
    .withRow(new RowBuilder('Reasons and status'))
    .withPanel(
      table(
        'Failure reasons',
        'Reasons given for failed tests, most frequent first.',
        [
          tableSql(`
          SELECT reason, count() AS failures, uniqExact(test_id) AS tests
          FROM ${database}.test_results FINAL
          ARRAY JOIN test_reasons AS reason
          WHERE $__timeFilter(event_time)
            AND test_success = false
            AND ${filters.testResults}
          GROUP BY reason
          ORDER BY failures DESC
          LIMIT 50`),
        ],
        10,
        8,
      ),
    )
    .withPanel(
      pie('Completion reasons', 'Evaluated tests by completion reason.', [
        tableSql(`
          SELECT ifNull(test_completion_reason, 'unknown') AS completion_reason, count() AS tests
          FROM ${from}
          GROUP BY completion_reason
          ORDER BY tests DESC`),
      ]),
    )
    .withPanel(
      pie(
        'Completion reasons of failed tests',
        'Failed tests by completion reason.',
        [
          tableSql(`
          SELECT ifNull(test_completion_reason, 'unknown') AS completion_reason, count() AS tests
          FROM ${from}\n${continuationMark}  AND test_success = false
          GROUP BY completion_reason
          ORDER BY tests DESC`),
        ],
        6,
      ),
    )
    .withPanel(
      timeseries(
        'Test status over time',
        'Test conversations per interval by test_status.',
        [
          timeseriesSql(`
          SELECT $__timeInterval(event_time) AS time, ifNull(test_status, 'unknown') AS test_status, count() AS tests
          FROM ${from}
          GROUP BY time, test_status
          ORDER BY time, test_status`),
        ],
        { stacked: true, bars: true, width: 24 },
      ),
    )
}
