import { describe, expect, it } from 'vitest'
import { defaultSelections, inDatabase, macroContext } from './dashboard-queries.ts'
import { timeWindows } from './time-windows.ts'

describe('dashboard choices of the queries benchmark', () => {
  const variables = {
    names: ['source', 'agent', 'include_flagged'],
    custom: [{ name: 'include_flagged', current: '0' }],
  }

  it('selects All for query variables and the shipped default of custom ones (flagged values left out)', () => {
    expect(defaultSelections(variables)).toEqual({
      source: '$__all',
      agent: '$__all',
      include_flagged: ['0'],
    })
  })

  it('gives the macros the window and its interval', () => {
    const [day] = timeWindows(new Date('2026-11-25T00:00:00Z'))
    const context = macroContext(day!, variables)
    expect(context.from.toISOString()).toBe('2026-11-24T00:00:00.000Z')
    expect(context.intervalSeconds).toBe(600)
    expect(context.variables.agent).toBe('$__all')
  })

  it("points the shipped SQL at the size's own database, names only", () => {
    expect(
      inDatabase(
        "SELECT 1 FROM voice_analytics.conversations FINAL JOIN voice_analytics.test_results USING x WHERE source = 'my_voice_analytics'",
        'voice_analytics',
        'qbench_m',
      ),
    ).toBe(
      "SELECT 1 FROM qbench_m.conversations FINAL JOIN qbench_m.test_results USING x WHERE source = 'my_voice_analytics'",
    )
  })
})
