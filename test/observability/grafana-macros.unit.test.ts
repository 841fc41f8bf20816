// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Grafana's ${variable:format} syntax is what these tests are about
import { describe, expect, it } from 'vitest'
import {
  expandConditionalAll,
  expandPanelSql,
  expandTimeMacros,
  expandVariables,
  type MacroContext,
} from '../../dashboards/src/grafana-macros.ts'

// The expansion the query tests rely on, pinned against what Grafana and the ClickHouse plugin
// produce (pkg/macros/macros.go, CHDatasource.applyConditionalAll, the template service).
const from = new Date('2026-03-02T10:00:00Z')
const to = new Date('2026-03-02T16:00:00Z')

describe('expandConditionalAll', () => {
  it('drops the condition for All or an empty selection, keeps it otherwise', () => {
    const sql =
      'WHERE $__conditionalAll(agent_id IN (${agent:singlequote}), $agent) AND $__conditionalAll(x IN (f(a, b)), ${src})'
    expect(expandConditionalAll(sql, { agent: '$__all', src: [] })).toBe('WHERE 1=1 AND 1=1')
    expect(expandConditionalAll(sql, { agent: ['a'], src: ['s'] })).toBe(
      'WHERE agent_id IN (${agent:singlequote}) AND x IN (f(a, b))',
    )
  })

  it('refuses an unknown variable', () => {
    expect(() => expandConditionalAll('$__conditionalAll(a = 1, $nope)', {})).toThrow(/unknown variable/)
  })
})

describe('expandVariables', () => {
  it('renders singlequote with escaped quotes, and All as every option', () => {
    expect(expandVariables('IN (${agent:singlequote})', { agent: ["O'Brien", 'b'] }, {})).toBe(
      "IN ('O\\'Brien','b')",
    )
    expect(expandVariables('IN (${agent:singlequote})', { agent: '$__all' }, { agent: ['x', 'y'] })).toBe(
      "IN ('x','y')",
    )
    expect(expandVariables('$__timeFilter(t)', {}, {})).toBe('$__timeFilter(t)')
  })
})

describe('expandTimeMacros', () => {
  it('renders as the plugin backend does', () => {
    expect(
      expandTimeMacros('WHERE $__timeFilter(event_time) GROUP BY $__timeInterval(minute)', {
        from,
        to,
        intervalSeconds: 300,
      }),
    ).toBe(
      'WHERE event_time >= toDateTime(1772445600) AND event_time <= toDateTime(1772467200) ' +
        'GROUP BY toStartOfInterval(toDateTime(minute), INTERVAL 300 second)',
    )
    expect(expandTimeMacros('$__fromTime $__toTime $__interval_s', { from, to, intervalSeconds: 0.2 })).toBe(
      'toDateTime(1772445600) toDateTime(1772467200) 1',
    )
  })

  it('refuses a macro it does not know', () => {
    expect(() => expandTimeMacros('$__timeFiltr(x)', { from, to, intervalSeconds: 1 })).toThrow(
      /unknown macro/,
    )
  })
})

describe('expandPanelSql', () => {
  it('applies all three steps, and refuses a variable the dashboard does not define', () => {
    const context: MacroContext = { from, to, intervalSeconds: 60, variables: { source: ['prod'] } }
    expect(
      expandPanelSql(
        'SELECT 1 WHERE $__timeFilter(t) AND $__conditionalAll(source IN (${source:singlequote}), $source)',
        context,
        {},
      ),
    ).toBe(
      "SELECT 1 WHERE t >= toDateTime(1772445600) AND t <= toDateTime(1772467200) AND source IN ('prod')",
    )
    expect(() => expandPanelSql('SELECT $nope', context, {})).toThrow(/unknown template variable/)
  })
})
