import type * as cog from '@grafana/grafana-foundation-sdk/cog'
import type * as common from '@grafana/grafana-foundation-sdk/common'
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus'
import { sql } from './panel-sql.ts'

export { continuationMark, database, sql } from './panel-sql.ts'

// The two datasources the provisioning defines (dashboards/grafana/provisioning/datasources),
// referred to by uid, and the query models the dashboards and alert rules use with them.
export const prometheusDatasource: common.DataSourceRef = { type: 'prometheus', uid: 'prometheus' }
export const clickhouseDatasource: common.DataSourceRef = {
  type: 'grafana-clickhouse-datasource',
  uid: 'clickhouse',
}

/** How the ClickHouse plugin shapes a result (sqlds formats): time series or table. */
export type ClickHouseFormat = 'timeseries' | 'table'

/** The query model of grafana-clickhouse-datasource 4.x for a raw SQL query. */
export interface ClickHouseQuery extends cog.Dataquery {
  refId: string
  datasource: common.DataSourceRef
  pluginVersion: string
  editorType: 'sql'
  queryType: ClickHouseFormat
  format: 0 | 1
  rawSql: string
}

export const clickhousePluginVersion = '4.11.0'

export class ClickHouseQueryBuilder implements cog.Builder<cog.Dataquery> {
  private readonly query: ClickHouseQuery

  constructor(rawSql: string, format: ClickHouseFormat, refId = 'A') {
    this.query = {
      refId,
      datasource: clickhouseDatasource,
      pluginVersion: clickhousePluginVersion,
      editorType: 'sql',
      queryType: format,
      format: format === 'timeseries' ? 0 : 1,
      rawSql: sql(rawSql),
      _implementsDataqueryVariant: () => {},
    }
  }

  build(): ClickHouseQuery {
    return this.query
  }
}

export const timeseriesSql = (rawSql: string, refId = 'A') =>
  new ClickHouseQueryBuilder(rawSql, 'timeseries', refId)
export const tableSql = (rawSql: string, refId = 'A') => new ClickHouseQueryBuilder(rawSql, 'table', refId)

/** A PromQL target; legend names the series by the labels it keeps. */
export function promql(expr: string, legendFormat: string, refId = 'A') {
  return new DataqueryBuilder()
    .datasource(prometheusDatasource)
    .expr(expr)
    .legendFormat(legendFormat)
    .range()
    .refId(refId)
}
