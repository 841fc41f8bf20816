import type { ClickHouseClient } from '../clickhouse/clickhouse.ts'
import {
  type Direction,
  type PriceComponent,
  type PriceRow,
  type PriceUnit,
  priceFields,
} from './price-row.ts'
import { checkPriceChanges, type PriceChange } from './price-rules.ts'

// The prices table (migration 0011) read and written: every change is checked against what is
// stored (price-rules.ts) before anything is inserted, then the dictionary the cost view reads
// is reloaded, so the next query costs calls with the new prices. Used by `voice-analytics
// prices` directly (a server, or a data directory nobody holds) and by the dev SQL endpoint's
// POST /prices (the process that holds the embedded data directory).

interface StoredPrice {
  component: string
  telecom_provider: string
  direction: string
  agent_id: string
  unit: string
  price: string
  currency: string
  valid_from_ms: string
  valid_to_ms: string | null
  note: string
}

export async function readPrices(client: ClickHouseClient, database: string): Promise<PriceRow[]> {
  const result = await client.query({
    query: `SELECT component, telecom_provider, direction, agent_id, unit, toString(price) AS price, currency,
        toString(toUnixTimestamp64Milli(valid_from)) AS valid_from_ms,
        toString(toUnixTimestamp64Milli(valid_to)) AS valid_to_ms, note
      FROM ${database}.prices FINAL
      ORDER BY component, telecom_provider, direction, agent_id, valid_from`,
    format: 'JSONEachRow',
  })
  return (await result.json<StoredPrice>()).map((row) => ({
    component: row.component as PriceComponent,
    telecom_provider: row.telecom_provider,
    direction: row.direction as Direction,
    agent_id: row.agent_id,
    unit: row.unit as PriceUnit,
    price: row.price,
    currency: row.currency,
    valid_from: Number(row.valid_from_ms),
    valid_to: row.valid_to_ms === null ? undefined : Number(row.valid_to_ms),
    note: row.note,
  }))
}

const dateTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')

/** Checks the changes against the stored prices (PriceRuleError when refused), then stores them. */
export async function addPrices(
  client: ClickHouseClient,
  database: string,
  changes: PriceChange[],
): Promise<number> {
  checkPriceChanges(await readPrices(client, database), changes)
  await client.insert({
    table: `${database}.prices`,
    format: 'JSONEachRow',
    columns: [...priceFields],
    values: changes.map(({ row }) => ({
      ...row,
      valid_from: dateTime(row.valid_from),
      valid_to: row.valid_to === undefined ? null : dateTime(row.valid_to),
    })),
  })
  await reloadPriceLookup(client, database)
  return changes.length
}

/** The cost view reads the prices through a dictionary: reload it so a change counts at once. */
export async function reloadPriceLookup(client: ClickHouseClient, database: string): Promise<void> {
  await client.command({ query: `SYSTEM RELOAD DICTIONARY ${database}.price_lookup` })
}
