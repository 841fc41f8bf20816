import { describe, expect, it } from 'vitest'
import { insertToken } from './insert-token.ts'

describe('insertToken', () => {
  const a = { topic: 't', partition: 3, firstOffset: '10', lastOffset: '19' }
  const b = { topic: 't', partition: 1, firstOffset: '5', lastOffset: '5' }

  it('names the offset ranges, in a fixed order', () => {
    expect(insertToken([a, b])).toBe('rows-v1:t/1/5-5,t/3/10-19')
    expect(insertToken([b, a])).toBe(insertToken([a, b]))
  })

  it('differs for another range', () => {
    expect(insertToken([{ ...a, lastOffset: '20' }])).not.toBe(insertToken([a]))
  })
})
