import { describeKey, type PriceRow, PriceRuleError, priceKey, rowProblems } from './price-row.ts'

// The rules between prices, checked before any is written (`prices set`, `prices import`): every
// row valid on its own; no two prices of one key starting at the same time; no price whose
// valid_to runs past the start of the next one of its key (an open-ended price simply ends where
// the next starts: that is a price change); one currency for the whole table, since a call's
// components are added up. Every problem is reported at once, each naming its row.

export interface PriceChange {
  row: PriceRow
  /** Where it came from, for messages: "line 4", "--price". */
  origin: string
}

const at = (ms: number) => new Date(ms).toISOString()

/** The end of each row's validity: valid_to, else the next row of its key, else open (undefined). */
export function validUntil(rows: PriceRow[]): Map<PriceRow, number | undefined> {
  const byKey = Map.groupBy(rows, priceKey)
  const until = new Map<PriceRow, number | undefined>()
  for (const series of byKey.values()) {
    const sorted = [...series].sort((a, b) => a.valid_from - b.valid_from)
    for (const [index, row] of sorted.entries()) until.set(row, row.valid_to ?? sorted[index + 1]?.valid_from)
  }
  return until
}

/** Throws a PriceRuleError naming every problem when `added` may not join `existing`. */
export function checkPriceChanges(existing: PriceRow[], added: PriceChange[]): void {
  const problems: string[] = []
  for (const { row, origin } of added)
    for (const problem of rowProblems(row)) problems.push(`${origin}: ${problem}`)
  if (problems.length > 0) throw new PriceRuleError(problems.join('\n'))

  const originOf = new Map<PriceRow, string>(added.map(({ row, origin }) => [row, origin]))
  const describe = (row: PriceRow) => originOf.get(row) ?? `the stored price from ${at(row.valid_from)}`
  const all = [...existing, ...added.map(({ row }) => row)]
  for (const series of Map.groupBy(all, priceKey).values()) {
    const sorted = [...series].sort((a, b) => a.valid_from - b.valid_from)
    for (let index = 1; index < sorted.length; index++) {
      const before = sorted[index - 1]!
      const after = sorted[index]!
      if (!originOf.has(before) && !originOf.has(after)) continue
      // Each problem is told from the side of a new price.
      const [told, other] = originOf.has(after) ? [after, before] : [before, after]
      if (before.valid_from === after.valid_from)
        problems.push(
          `${describe(told)}: ${describeKey(told)} already has a price from ${at(told.valid_from)} ` +
            `(${describe(other)}); a price change starts at another time`,
        )
      else if (before.valid_to !== undefined && before.valid_to > after.valid_from)
        problems.push(
          `${describe(told)}: ${describeKey(told)} from ${at(told.valid_from)}` +
            `${told.valid_to === undefined ? '' : ` until ${at(told.valid_to)}`} overlaps ` +
            `${describe(other)}${other.valid_to === undefined ? '' : `, valid until ${at(other.valid_to)}`}`,
        )
    }
  }
  const currencies = new Set(all.map((row) => row.currency))
  if (currencies.size > 1) {
    const stored = new Set(existing.map((row) => row.currency))
    problems.push(
      `prices are kept in one currency, since a call's components are added up: ` +
        `${stored.size > 0 ? `the table holds ${[...stored].join(', ')}, ` : ''}` +
        `the new prices name ${[...new Set(added.map(({ row }) => row.currency))].join(', ')}`,
    )
  }
  if (problems.length > 0) throw new PriceRuleError(problems.join('\n'))
}
