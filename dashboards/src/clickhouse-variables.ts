import {
  CustomVariableBuilder,
  QueryVariableBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard'
import { includeFlaggedDefault, includeFlaggedVariable, type VariableName } from './clickhouse-filters.ts'
import { clickhouseDatasource, database, sql } from './grafana-queries.ts'

export { filters, rollupColumn } from './clickhouse-filters.ts'

// The dashboard variables of the ClickHouse dashboards (the WHERE conditions that apply them are in
// clickhouse-filters.ts).
// Every variable is multi-value with "All"; a condition is wrapped in the plugin's
// $__conditionalAll(condition, $variable), which becomes 1=1 when All (or nothing) is selected,
// so "All" costs no IN list. ${name:singlequote} renders the selection as 'a','b'.

/** A query variable whose SQL returns (value) or (value, label), within the dashboard's time range. */
function clickhouseVariable(name: VariableName, label: string, rawSql: string) {
  const query = sql(rawSql)
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(clickhouseDatasource)
    .query({ refId: `variable-${name}`, queryType: 'sql', rawSql: query })
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .current({ selected: true, text: ['All'], value: ['$__all'] })
}

export const variables = {
  source: () =>
    clickhouseVariable(
      'source',
      'Source',
      `
      SELECT DISTINCT source
      FROM ${database}.conversations
      WHERE $__timeFilter(event_time)
      ORDER BY source`,
    ),
  agent: () =>
    clickhouseVariable(
      'agent',
      'Agent',
      `
      SELECT agent_id, any(ifNull(agent_name, agent_id)) AS agent
      FROM ${database}.conversations
      WHERE $__timeFilter(event_time)
      GROUP BY agent_id
      ORDER BY agent`,
    ),
  campaign: () =>
    clickhouseVariable(
      'campaign',
      'Campaign',
      `
      SELECT campaign_id, any(ifNull(campaign_name, campaign_id)) AS campaign
      FROM ${database}.campaign_items
      WHERE $__timeFilter(event_time)
      GROUP BY campaign_id
      ORDER BY campaign`,
    ),
  telecom_provider: () =>
    clickhouseVariable(
      'telecom_provider',
      'Telecom provider',
      `
      SELECT DISTINCT ifNull(telecom_provider, 'none') AS telecom_provider
      FROM ${database}.conversations
      WHERE $__timeFilter(event_time)
      ORDER BY telecom_provider`,
    ),
  test_run: () =>
    clickhouseVariable(
      'test_run',
      'Test run',
      `
      SELECT test_run_id, concat(formatDateTime(min(event_time), '%Y-%m-%d %H:%i'), '  ', test_run_id) AS test_run
      FROM ${database}.test_results
      WHERE $__timeFilter(event_time)
      GROUP BY test_run_id
      ORDER BY test_run DESC`,
    ),
  /** Whether latency panels take in the values of flagged items (docs/metric-quality.md); default: no. */
  include_flagged: () => {
    const options = [
      { text: 'Excluded', value: '0' },
      { text: 'Included', value: '1' },
    ]
    const current = options.find((option) => option.value === includeFlaggedDefault)!
    return new CustomVariableBuilder(includeFlaggedVariable)
      .label('Flagged values')
      .description(
        'Values of history items that break a metric-quality rule (docs/metric-quality.md): left out of latency percentiles unless included',
      )
      .values(options.map((option) => `${option.text} : ${option.value}`).join(','))
      .options(options.map((option) => ({ ...option, selected: option === current })))
      .current({ ...current, selected: true })
      .multi(false)
      .includeAll(false)
      .allowCustomValue(false)
  },
}
