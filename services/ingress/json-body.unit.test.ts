import { describe, expect, it } from 'vitest'
import { parseJsonBody } from './json-body.ts'

describe('parseJsonBody', () => {
  it('parses UTF-8 JSON', () => {
    expect(parseJsonBody(Buffer.from('{"a":"é🤖"}'))).toEqual({ a: 'é🤖' })
  })
  it('takes a constructor key that carries no prototype, and a leading byte-order mark', () => {
    expect(parseJsonBody(Buffer.from('{"constructor":"fine"}'))).toEqual({ constructor: 'fine' })
    expect(parseJsonBody(Buffer.from('\uFEFF{"a":1}'))).toEqual({ a: 1 })
  })
  it('parses 100,000-deep nesting without overflowing the stack', () => {
    const depth = 100_000
    expect(Array.isArray(parseJsonBody(Buffer.from('['.repeat(depth) + ']'.repeat(depth))))).toBe(true)
  })
  it.each([
    ['empty', Buffer.alloc(0), /empty/],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /UTF-8/],
    ['not JSON', Buffer.from('{nope}'), /not acceptable JSON/],
    ['__proto__', Buffer.from('{"__proto__":{"x":1}}'), /not acceptable JSON/],
    [
      'an escaped __proto__',
      Buffer.from('{"a":[{"\\u005f_pro\\u0074o__" :{"x":1}}]}'),
      /not acceptable JSON/,
    ],
    [
      'constructor.prototype',
      Buffer.from('{"a":{"constructor":{"prototype":{"x":1}}}}'),
      /not acceptable JSON/,
    ],
    [
      'an escaped constructor.prototype',
      Buffer.from('{"\\u0063onstructor":{"prototype":{"x":1}}}'),
      /not acceptable JSON/,
    ],
  ])('refuses %s with a 400', (_, body, message) => {
    expect(() => parseJsonBody(body)).toThrow(message)
    try {
      parseJsonBody(body)
    } catch (error) {
      expect((error as { statusCode: number }).statusCode).toBe(400)
    }
  })
})
