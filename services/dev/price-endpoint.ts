import type { ClickHouseClient } from '../core/clickhouse.ts'
import { PriceRuleError } from '../core/pricing/price-row.ts'
import type { PriceChange } from '../core/pricing/price-rules.ts'
import { addPrices } from '../core/pricing/price-store.ts'

// POST /prices of the dev SQL endpoint: the one write it takes, for `voice-analytics prices set|
// import` while `./run dev` holds the embedded data directory. Behind the same guards as the SQL
// (loopback Host, no cross-site request, the token); the body is the checked-for-nothing JSON of
// the CLI's price changes, and the rules (price-rules.ts) run here against what is stored, one
// change at a time (the check and the insert of two requests never interleave).
export interface PriceAnswer {
  status: number
  text: string
}

let queue: Promise<unknown> = Promise.resolve()

export function answerPriceChanges(
  body: string,
  openSession: () => ClickHouseClient,
  database: string,
): Promise<PriceAnswer> {
  const run = async (): Promise<PriceAnswer> => {
    let changes: PriceChange[]
    try {
      const parsed = JSON.parse(body) as { changes?: unknown }
      if (!Array.isArray(parsed.changes)) throw new Error('no changes')
      changes = parsed.changes as PriceChange[]
    } catch {
      return {
        status: 400,
        text: 'POST {"changes": [{"row": {...}, "origin": "..."}]} as voice-analytics prices sends it',
      }
    }
    const session = openSession()
    try {
      const added = await addPrices(session, database, changes)
      return { status: 200, text: JSON.stringify({ added }) }
    } catch (error) {
      return { status: error instanceof PriceRuleError ? 400 : 500, text: (error as Error).message }
    } finally {
      await session.close()
    }
  }
  const answer = queue.then(run, run)
  queue = answer
  return answer
}
