import secureJson from 'secure-json-parse'
import { badRequest } from './ingress-errors.ts'

// The webhook body as bytes → JSON, refusing what could hurt the process: invalid UTF-8,
// absurd nesting (deep payloads blow the stack of every later JSON.stringify) and
// prototype-poisoning keys (`__proto__`, `constructor.prototype`).
export const maxNestingDepth = 64
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The deepest nesting of objects and arrays in a JSON text, strings skipped; stops past `limit`. */
export function jsonNestingDepth(text: string, limit = maxNestingDepth): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 92 /* \ */) i++
      else if (char === 34 /* " */) inString = false
    } else if (char === 34) inString = true
    else if (char === 123 /* { */ || char === 91 /* [ */) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (char === 125 /* } */ || char === 93 /* ] */) depth--
  }
  return deepest
}

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('request body is empty', [{ path: '', problem: 'empty body' }])
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw badRequest('request body is not valid UTF-8', [{ path: '', problem: 'invalid UTF-8' }])
  }
  if (jsonNestingDepth(text) > maxNestingDepth)
    throw badRequest(`JSON is nested deeper than ${maxNestingDepth} levels`, [
      { path: '', problem: 'nesting too deep' },
    ])
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
