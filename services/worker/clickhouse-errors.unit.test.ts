import { describe, expect, it } from 'vitest'
import { isConfigurationError, isDataError } from './clickhouse-errors.ts'

describe('ClickHouse error classes', () => {
  it('tells data the server refuses from everything else', () => {
    expect(isDataError({ code: '27', message: 'Cannot parse input' })).toBe(true)
    expect(isDataError({ code: 53 })).toBe(true)
    expect(isDataError({ code: '60' })).toBe(false)
    expect(isDataError(new Error('connect ECONNREFUSED'))).toBe(false)
    expect(isDataError({ code: 'CHDB_QUERY', clickhouseCode: 27 })).toBe(true)
    expect(isDataError({ code: 'CHDB_QUERY', clickhouseCode: 60 })).toBe(false)
  })

  it('names the errors that need an operator', () => {
    expect(isConfigurationError({ code: '60' })).toBe(true)
    expect(isConfigurationError({ code: '516' })).toBe(true)
    expect(isConfigurationError({ code: '252' })).toBe(false)
  })
})
