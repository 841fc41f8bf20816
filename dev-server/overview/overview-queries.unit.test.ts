import { describe, expect, it } from 'vitest'
import * as cost from '../../dashboards/src/cost-panel-sql.ts'
import * as origins from '../../dashboards/src/origin-panel-sql.ts'
import * as quality from '../../dashboards/src/quality-panel-sql.ts'
import * as shared from '../../dashboards/src/shared-panel-sql.ts'
import * as versions from '../../dashboards/src/version-changes-sql.ts'
import {
  isOverviewQueryName,
  type OverviewQueryName,
  overviewQueries,
  overviewSql,
} from './overview-queries.ts'

const now = new Date('2026-11-23T12:00:00Z')

describe('overview queries', () => {
  it('are the dashboards’ own SQL (shared-, cost-, quality-, origin-panel-sql.ts and version-changes-sql.ts), not copies', () => {
    const sharedTexts = new Set<string>(
      [
        ...Object.values(shared),
        ...Object.values(cost),
        ...Object.values(quality),
        ...Object.values(versions),
        ...Object.values(origins),
      ].flatMap((value) =>
        typeof value === 'function'
          ? [(value as (metric: string) => string)('e2e_latency')]
          : typeof value === 'string'
            ? [value]
            : [],
      ),
    )
    for (const [name, query] of Object.entries(overviewQueries))
      expect(sharedTexts.has(query.rawSql), name).toBe(true)
  })
  it('expand every macro for All selected and the last 24 hours', () => {
    for (const name of Object.keys(overviewQueries) as OverviewQueryName[]) {
      const text = overviewSql(name, now)
      expect(text, name).not.toContain('$')
      expect(text, name).toContain(`toDateTime(${now.getTime() / 1000 - 24 * 3600})`)
      expect(text, name).not.toContain('\u0000')
    }
  })
  it('give charts their time as Unix seconds, around the panel’s SQL', () => {
    const text = overviewSql('test-pass-rate', now)
    expect(text).toMatch(/^SELECT \* REPLACE \(toUnixTimestamp\(time\) AS time\)\nFROM \(\nSELECT /)
    expect(overviewSql('slowest-turns', now)).toMatch(/^SELECT\n/)
  })
  it('leave flagged values out, as the dashboards do by default', () => {
    const latency = overviewSql('e2e-latency', now)
    expect(latency).toContain(
      'sumMap(if(0 = 1, arrayConcat(e2e_latency_unflagged_buckets, e2e_latency_flagged_buckets), e2e_latency_unflagged_buckets)',
    )
    expect(latency).toContain('if(0 = 1, e2e_latency_count, e2e_latency_unflagged_count) > 0')
    expect(overviewSql('slowest-turns', now)).toContain('AND (0 = 1 OR empty(metric_flags))')
    expect(overviewSql('slowest-turns', now)).toContain('0 = 1 AND e2e_latency_flagged_count > 0')
  })
  it('know only their own names', () => {
    expect(isOverviewQueryName('e2e-latency')).toBe(true)
    expect(isOverviewQueryName('toString')).toBe(false)
    expect(isOverviewQueryName('constructor')).toBe(false)
  })
})
