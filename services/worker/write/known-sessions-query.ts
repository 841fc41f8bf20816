import type { ClickHouseClient } from '../../../core/clickhouse/clickhouse.ts'
import { hexDigestKey } from './known-sessions.ts'

// Loads what KnownSessions holds: every session the conversations table has a row of (tombstones
// and superseded deliveries included: any of them makes a write a re-delivery) and every session
// `forget` erased. Run when the worker starts reading partitions it did not hold, since another
// worker may have stored their conversations meanwhile. ClickHouse hashes, so only 8 hex digits per
// conversation cross over (about 9 bytes: 1,000,000 conversations in ~9 MB of text).
export function knownSessionsQuery(database: string): string {
  return `SELECT substring(hex(SHA256(session_id)), 1, 8) FROM ${database}.conversations
UNION DISTINCT
SELECT substring(session_hash, 1, 8) FROM ${database}.forgotten_sessions`
}

export async function loadKnownSessionKeys(client: ClickHouseClient, database: string): Promise<Uint32Array> {
  const result = await client.query({ query: knownSessionsQuery(database), format: 'TabSeparated' })
  const text = await result.text()
  const keys = new Uint32Array(Math.ceil(text.length / 9) + 1)
  let count = 0
  let start = 0
  while (start < text.length) {
    const end = text.indexOf('\n', start)
    const line = text.slice(start, end === -1 ? text.length : end)
    if (line.length > 0) keys[count++] = hexDigestKey(line)
    start = end === -1 ? text.length : end + 1
  }
  return keys.subarray(0, count)
}
