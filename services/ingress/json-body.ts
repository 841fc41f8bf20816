import secureJson from 'secure-json-parse'
import { badRequest } from './ingress-errors.ts'

// The webhook body as bytes → JSON, refusing what could hurt the process: invalid UTF-8 and
// prototype-poisoning keys (`__proto__`, `constructor.prototype`). (V8 parses deep nesting
// without recursion; the schema check bounds it where it matters, in unknown fields.)
const utf8 = new TextDecoder('utf-8', { fatal: true })

// A key that could be `__proto__` or `constructor`, each letter possibly \u-escaped: one scan
// of the text for both (secure-json-parse scans twice, once per key, on every body). Only a
// body with such a key is handed to secure-json-parse, which decides.
const letter = (char: string) => `(?:${char}|\\\\u00${char.charCodeAt(0).toString(16)})`
const suspectKey = new RegExp(
  `"(?:${[...'__proto__'].map(letter).join('')}|${[...'constructor'].map(letter).join('')})"\\s*:`,
  'i',
)

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('request body is empty', [{ path: '', problem: 'empty body' }])
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw badRequest('request body is not valid UTF-8', [{ path: '', problem: 'invalid UTF-8' }])
  }
  try {
    // secure-json-parse drops a leading byte-order mark; so do we.
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
    const value: unknown = JSON.parse(json)
    if (typeof value !== 'object' || value === null || !suspectKey.test(json)) return value
    return secureJson.parse(json, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const message =
      error instanceof SyntaxError ? error.message : 'forbidden key (__proto__ or constructor.prototype)'
    throw badRequest(`request body is not acceptable JSON: ${message}`, [
      { path: '', problem: 'invalid JSON' },
    ])
  }
}
