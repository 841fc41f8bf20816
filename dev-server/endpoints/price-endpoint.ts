import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { PriceRuleError } from '../../core/pricing/price-row.ts'
import type { PriceChange } from '../../core/pricing/price-rules.ts'
import { addPrices } from '../../core/pricing/price-store.ts'
import { answerInSession, oneAtATime, type WriteAnswer } from './write-route.ts'

// POST /prices of the dev SQL endpoint: a write it takes (POST /forget is the other), for `voice-analytics prices set|
// import` while `./run dev` holds the embedded data directory. Behind the same guards as the SQL
// (loopback Host, no cross-site request, the token); the body is the checked-for-nothing JSON of
// the CLI's price changes, and the rules (price-rules.ts) run here against what is stored, one
// change at a time (the check and the insert of two requests never interleave).
const inTurn = oneAtATime()

export function answerPriceChanges(
  body: string,
  openSession: () => ClickHouseClient,
  database: string,
): Promise<WriteAnswer> {
  return inTurn(async (): Promise<WriteAnswer> => {
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
    return answerInSession(
      openSession,
      async (session) => ({ added: await addPrices(session, database, changes) }),
      (error) => error instanceof PriceRuleError,
    )
  })
}
