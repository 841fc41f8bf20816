import { describe, expect, it } from 'vitest'
import { queryOutputFormat } from './output-format.ts'

describe('queryOutputFormat', () => {
  it('draws a table on a terminal', () => expect(queryOutputFormat(undefined, true)).toBe('PrettyCompact'))
  it('writes plain tab-separated values to a pipe or a capture', () =>
    expect(queryOutputFormat(undefined, false)).toBe('TabSeparated'))
  it('takes --format as given either way', () => {
    expect(queryOutputFormat('JSONEachRow', true)).toBe('JSONEachRow')
    expect(queryOutputFormat('PrettyCompact', false)).toBe('PrettyCompact')
  })
})
