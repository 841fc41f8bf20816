import { describe, expect, it } from 'vitest'
import { insertToken, messagesDigest } from './insert-token.ts'

describe('insertToken', () => {
  const a = { topic: 't', partition: 3, firstOffset: '10', lastOffset: '19', digest: 'aa' }
  const b = { topic: 't', partition: 1, firstOffset: '5', lastOffset: '5', digest: 'bb' }

  it('names the offset ranges and their digests, in a fixed order', () => {
    expect(insertToken([a, b])).toBe('rows-v2:t/1/5-5#bb,t/3/10-19#aa')
    expect(insertToken([b, a])).toBe(insertToken([a, b]))
  })

  it('differs for another range', () => {
    expect(insertToken([{ ...a, lastOffset: '20' }])).not.toBe(insertToken([a]))
  })

  it('differs for other data at the same offsets (a topic re-created starts again at 0)', () => {
    expect(insertToken([{ ...a, digest: 'cc' }])).not.toBe(insertToken([a]))
  })
})

describe('messagesDigest', () => {
  const message = (key: string, value: string, timestamp = '1000', offset = '0') => ({
    key: Buffer.from(key),
    value: Buffer.from(value),
    timestamp,
    offset,
  })

  it('is the same for the same messages', () => {
    expect(messagesDigest([message('k', 'v')])).toBe(messagesDigest([message('k', 'v')]))
  })

  it('changes with any key, value, timestamp or offset, and with their order', () => {
    const base = messagesDigest([message('k', 'v'), message('l', 'w')])
    expect(messagesDigest([message('k', 'x'), message('l', 'w')])).not.toBe(base)
    expect(messagesDigest([message('j', 'v'), message('l', 'w')])).not.toBe(base)
    expect(messagesDigest([message('k', 'v', '1001'), message('l', 'w')])).not.toBe(base)
    expect(messagesDigest([message('k', 'v', '1000', '1'), message('l', 'w')])).not.toBe(base)
    expect(messagesDigest([message('l', 'w'), message('k', 'v')])).not.toBe(base)
  })

  it('does not confuse where one field ends and the next begins', () => {
    expect(messagesDigest([message('ab', 'c')])).not.toBe(messagesDigest([message('a', 'bc')]))
    expect(messagesDigest([{ ...message('', 'v'), key: null }])).not.toBe(messagesDigest([message('', 'v')]))
  })
})
