import {
  type Direction,
  type PriceComponent,
  type PriceRow,
  PriceRuleError,
  type PriceUnit,
  parsePriceTime,
  priceFields,
} from './price-row.ts'
import type { PriceChange } from './price-rules.ts'

// The price file `voice-analytics prices import` reads (docs/costs.md, docs/prices.example.csv):
// CSV with a header naming the columns below in any order, fields quoted with " when they hold a
// comma or a quote (a quote doubled inside), lines starting with # and blank lines skipped. Each
// row becomes a PriceChange named by its line; a file with any bad line is refused whole.

/** The CSV's columns: a price's fields (price-row.ts). */
export const priceCsvColumns = priceFields
const required = ['component', 'unit', 'price', 'currency', 'valid_from'] as const

/** The fields of one CSV line. */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = []
  let field = ''
  let quoted = false
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        field += '"'
        index++
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"' && field === '') quoted = true
    else if (char === ',') {
      fields.push(field)
      field = ''
    } else field += char
  }
  if (quoted) throw new PriceRuleError('a quoted field is not closed')
  fields.push(field)
  return fields
}

export function parsePriceCsv(text: string): PriceChange[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  const content = lines
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== '' && !line.trimStart().startsWith('#'))
  const header = content.shift()
  if (!header) throw new PriceRuleError('the price file has no header line')
  const names = splitCsvLine(header.line).map((name) => name.trim())
  const unknown = names.filter((name) => !(priceCsvColumns as readonly string[]).includes(name))
  const missing = required.filter((name) => !names.includes(name))
  if (unknown.length > 0 || missing.length > 0)
    throw new PriceRuleError(
      `line ${header.number}: the header must name the columns ${priceCsvColumns.join(',')}` +
        `${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}` +
        `${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}`,
    )
  const problems: string[] = []
  const changes: PriceChange[] = []
  for (const { line, number } of content) {
    try {
      const fields = splitCsvLine(line)
      if (fields.length !== names.length)
        throw new PriceRuleError(`${fields.length} fields, the header names ${names.length}`)
      const value = (name: string) => (fields[names.indexOf(name)] ?? '').trim()
      const validTo = value('valid_to')
      const row: PriceRow = {
        component: value('component') as PriceComponent,
        telecom_provider: value('telecom_provider'),
        direction: value('direction') as Direction,
        agent_id: value('agent_id'),
        unit: value('unit') as PriceUnit,
        price: value('price'),
        currency: value('currency'),
        valid_from: parsePriceTime(value('valid_from'), 'valid_from'),
        valid_to: validTo === '' ? undefined : parsePriceTime(validTo, 'valid_to'),
        note: value('note'),
      }
      changes.push({ row, origin: `line ${number}` })
    } catch (error) {
      problems.push(`line ${number}: ${(error as Error).message}`)
    }
  }
  if (problems.length > 0) throw new PriceRuleError(problems.join('\n'))
  if (changes.length === 0) throw new PriceRuleError('the price file holds no prices')
  return changes
}
