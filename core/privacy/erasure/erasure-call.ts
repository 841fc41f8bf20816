import type { ClickHouseClient } from '../../clickhouse/clickhouse.ts'
import { loadOrCreateLocalSecret, localStateDir } from '../../secrets/local-secret.ts'
import type { Config } from '../../settings/env.ts'
import { type SelectorOptions, selectorFromOptions } from './erasure-selector.ts'
import {
  type ErasureAuditRow,
  erasureStatus,
  type ForgetReport,
  forgetConversations,
} from './forget-conversations.ts'

// What `forget` asks of ClickHouse, as one JSON-able request: so that the same call runs on a client
// of the command's own, or in `./run dev` (which holds the embedded data directory) through its
// endpoint (dev-server/endpoints/forget-endpoint.ts), while ingest goes on. The keys (PII_HMAC_KEY, the
// audit key) are taken where the call runs: in `./run dev` they are the ones its worker stored with.
export type ErasureCall =
  | { status: true }
  | {
      /** The command line's selector options, parsed where the call runs (selectorFromOptions). */
      selector: SelectorOptions
      dryRun: boolean
      /** What ran it, for the audit. */
      command: string
    }

export type ErasureAnswer = { status: ErasureAuditRow[] } | { report: ForgetReport }

/** The audit hash's key: ERASURE_HMAC_KEY, else PII_HMAC_KEY, else one made once for this checkout. */
async function auditKey(config: Pick<Config, 'ERASURE_HMAC_KEY' | 'PII_HMAC_KEY'>): Promise<string> {
  return (
    config.ERASURE_HMAC_KEY ??
    config.PII_HMAC_KEY ??
    (await loadOrCreateLocalSecret(localStateDir(), 'erasure-hmac-key'))
  )
}

/** Runs one call; a selector that is not one throws ErasureRequestError. */
export async function runErasureCall(
  client: ClickHouseClient,
  config: Pick<Config, 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER' | 'ERASURE_HMAC_KEY' | 'PII_HMAC_KEY'>,
  call: ErasureCall,
): Promise<ErasureAnswer> {
  if ('status' in call) return { status: await erasureStatus(client, config.CLICKHOUSE_DATABASE) }
  const report = await forgetConversations(
    client,
    { database: config.CLICKHOUSE_DATABASE, cluster: config.CLICKHOUSE_CLUSTER },
    {
      selector: selectorFromOptions(call.selector),
      phoneHmacKey: config.PII_HMAC_KEY,
      auditKey: await auditKey(config),
      command: call.command,
      dryRun: call.dryRun,
    },
  )
  return { report }
}
