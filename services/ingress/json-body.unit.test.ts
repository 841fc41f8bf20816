import { describe, expect, it } from 'vitest'
import { jsonNestingDepth, maxNestingDepth, parseJsonBody } from './json-body.ts'

describe('jsonNestingDepth', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(jsonNestingDepth('{"a":[{"b":1}]}')).toBe(3)
    expect(jsonNestingDepth('{"a":"[[[[{{{{\\"]]"}')).toBe(1)
    expect(jsonNestingDepth('42')).toBe(0)
  })
  it('stops counting just past the limit', () => {
    expect(jsonNestingDepth('['.repeat(100_000), maxNestingDepth)).toBe(maxNestingDepth + 1)
  })
})

describe('parseJsonBody', () => {
  it('parses UTF-8 JSON', () => {
    expect(parseJsonBody(Buffer.from('{"a":"é🤖"}'))).toEqual({ a: 'é🤖' })
  })
  it.each([
    ['empty', Buffer.alloc(0), /empty/],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /UTF-8/],
    [
      'too deep',
      Buffer.from('['.repeat(maxNestingDepth + 1) + ']'.repeat(maxNestingDepth + 1)),
      /nested deeper/,
    ],
    ['not JSON', Buffer.from('{nope}'), /not acceptable JSON/],
    ['__proto__', Buffer.from('{"__proto__":{"x":1}}'), /not acceptable JSON/],
  ])('refuses %s with a 400', (_, body, message) => {
    expect(() => parseJsonBody(body)).toThrow(message)
    try {
      parseJsonBody(body)
    } catch (error) {
      expect((error as { statusCode: number }).statusCode).toBe(400)
    }
  })
})
