import secureJson from 'secure-json-parse'
import { badRequest } from './ingress-errors.ts'

// The webhook body as bytes → JSON, refusing what could hurt the process: invalid UTF-8 and
// prototype-poisoning keys (`__proto__`, `constructor.prototype`). (V8 parses deep nesting
// without recursion; the schema check bounds it where it matters, in unknown fields.)
const utf8 = new TextDecoder('utf-8', { fatal: true })

// Prototype keys are searched once, cheaply: a key secure-json-parse would refuse reads
// `__proto__` or `constructor` literally, or has a letter \u-escaped (so the text holds `\u00`).
// A body with none of them (nearly all) is not scanned again; one with any is handed to
// secure-json-parse, which decides. Measured on the benchmark's 22 KB bodies (best of 8):
// 14 µs per body for this one scan against 23 µs for secure-json-parse's two (JSON.parse: 56 µs).
const mayHidePrototypeKey = /__proto__|constructor|\\u00/

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('request body is empty', [{ path: '', problem: 'empty body' }])
  let text: string
  try {
    text = utf8.decode(body) // drops a leading byte-order mark, as secure-json-parse would
  } catch {
    throw badRequest('request body is not valid UTF-8', [{ path: '', problem: 'invalid UTF-8' }])
  }
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null || !mayHidePrototypeKey.test(text)) return value
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const message =
      error instanceof SyntaxError ? error.message : 'forbidden key (__proto__ or constructor.prototype)'
    throw badRequest(`request body is not acceptable JSON: ${message}`, [
      { path: '', problem: 'invalid JSON' },
    ])
  }
}
