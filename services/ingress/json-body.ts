import secureJson from 'secure-json-parse'
import { badRequest } from './ingress-errors.ts'

// The webhook body as bytes → JSON, refusing what could hurt the process: invalid UTF-8 and
// prototype-poisoning keys (`__proto__`, `constructor.prototype`). (V8 parses deep nesting
// without recursion; the schema check bounds it where it matters, in unknown fields.)
const utf8 = new TextDecoder('utf-8', { fatal: true })

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('request body is empty', [{ path: '', problem: 'empty body' }])
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw badRequest('request body is not valid UTF-8', [{ path: '', problem: 'invalid UTF-8' }])
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const message =
      error instanceof SyntaxError ? error.message : 'forbidden key (__proto__ or constructor.prototype)'
    throw badRequest(`request body is not acceptable JSON: ${message}`, [
      { path: '', problem: 'invalid JSON' },
    ])
  }
}
