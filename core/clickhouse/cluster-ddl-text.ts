import { ClusterDdlError } from './clickhouse-errors.ts'

// Reading SQL text for the cluster form (clickhouse-cluster-ddl.ts): where code is (not a string,
// a quoted name or a comment), where parentheses close, top-level commas, a trailing SETTINGS
// clause. No knowledge of the cluster here.

/**
 * The statement with string literals, quoted identifiers and comments blanked (same length), so that
 * keywords and names are found only where they are code. With `depth`, text inside parentheses too.
 */
export function codeMask(text: string, depth = false): string {
  let out = ''
  let level = 0
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === "'" || char === '"' || char === '`') {
      let end = i + 1
      while (end < text.length && text[end] !== char) end += text[end] === '\\' ? 2 : 1
      end = Math.min(end, text.length - 1)
      out += ' '.repeat(end - i + 1)
      i = end
      continue
    }
    if (char === '-' && text[i + 1] === '-') {
      const newline = text.indexOf('\n', i)
      const end = newline < 0 ? text.length : newline
      out += ' '.repeat(end - i)
      i = end - 1
      continue
    }
    if (char === ')') level--
    out += depth && level > 0 ? ' ' : char
    if (char === '(') level++
  }
  return out
}

/** Index of the parenthesis that closes the one at `open`. */
export function closingParen(text: string, open: number): number {
  const mask = codeMask(text)
  let level = 0
  for (let i = open; i < mask.length; i++) {
    if (mask[i] === '(') level++
    if (mask[i] === ')' && --level === 0) return i
  }
  throw new ClusterDdlError(`unbalanced parentheses in: ${excerpt(text)}`)
}

/** The parts of a text between top-level commas. */
export function splitTopLevel(text: string): string[] {
  const mask = codeMask(text, true)
  const parts: string[] = []
  let start = 0
  for (let i = 0; i < mask.length; i++)
    if (mask[i] === ',') {
      parts.push(text.slice(start, i).trim())
      start = i + 1
    }
  parts.push(text.slice(start).trim())
  return parts.filter((part) => part !== '')
}

/** A statement in one line, short enough for an error message. */
export const excerpt = (statement: string) => statement.replace(/\s+/g, ' ').slice(0, 120)

/** A text with its trailing top-level SETTINGS clause apart (query settings, not MODIFY SETTING). */
export function withoutSettings(text: string): { body: string; settings: string | undefined } {
  const match = /\bSETTINGS\s+(?!\()/gi
  const mask = codeMask(text, true)
  let found: number | undefined
  for (let m = match.exec(mask); m; m = match.exec(mask)) found = m.index
  if (found === undefined) return { body: text.trim(), settings: undefined }
  return { body: text.slice(0, found).trim(), settings: text.slice(found + 'SETTINGS'.length).trim() }
}
