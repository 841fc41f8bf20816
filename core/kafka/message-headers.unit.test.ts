import { describe, expect, it } from 'vitest'
import { eachHeader, headersBytes } from './message-headers.ts'

describe('message headers', () => {
  it('a name with several values is one header per value, in order', () => {
    const headers = { a: 'x', trace: [Buffer.from('hop-1'), 'hop-2'], gone: undefined }
    expect([...eachHeader(headers)]).toEqual([
      ['a', 'x'],
      ['trace', Buffer.from('hop-1')],
      ['trace', 'hop-2'],
    ])
  })

  it('bytes: each header its name and value (binary values by length), plus the overhead given', () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00]) // not UTF-8: as text it would count 7 bytes
    expect(headersBytes({ b: binary })).toBe(1 + 3)
    expect(headersBytes({ trace: ['é', 'ab'] })).toBe(5 + 2 + 5 + 2)
    expect(headersBytes({ trace: ['é', 'ab'], c: 'z' }, 8)).toBe(5 + 2 + 8 + 5 + 2 + 8 + 1 + 1 + 8)
  })
})
