import type { LockHolder } from './data-dir-lock-holder.ts'
import { type Diagnosis, displayUrl } from './diagnosis.ts'
import type { HttpObservation } from './http-probe.ts'

// ClickHouse at start. Embedded: the data directory belongs to one process at a time, so name the
// one that has it and what to do instead. Server: nothing answering, or a user it refuses.

export function diagnoseEmbeddedClickHouse(
  dataDir: string,
  absoluteDir: string,
  holder: LockHolder | undefined,
): Diagnosis | undefined {
  if (!holder) return undefined
  const who = holder.command ? `process ${holder.pid} (${holder.command})` : `process ${holder.pid}`
  return {
    variable: 'CLICKHOUSE_DATA_DIR',
    retriable: false,
    message:
      `CLICKHOUSE_DATA_DIR=${dataDir} (${absoluteDir}) is locked by ${who}: only one process may open an embedded ClickHouse data directory. ` +
      `Stop that process (kill ${holder.pid}), or give this one another CLICKHOUSE_DATA_DIR; to read the data while it runs, use \`voice-analytics query\` (\`npm run dev\` serves it).`,
  }
}

/** Answers of GET <url>/?query=SELECT 1 with the configured user. */
export function diagnoseClickHouseServer(
  url: string,
  user: string,
  observed: HttpObservation,
): Diagnosis | undefined {
  const shown = displayUrl(url)
  if (observed.kind === 'unreachable')
    return {
      variable: 'CLICKHOUSE_URL',
      retriable: true,
      message: `CLICKHOUSE_URL: the ClickHouse server is unreachable at ${shown} (${observed.reason}). Start it, or unset CLICKHOUSE_URL to use the embedded engine. Retrying meanwhile.`,
    }
  const { status, bodyStart } = observed
  if (status === 200 && bodyStart.trim() === '1') return undefined
  if (
    status === 401 ||
    status === 403 ||
    /AUTHENTICATION_FAILED|Code: 516\b|REQUIRED_PASSWORD/.test(bodyStart)
  )
    return {
      variable: 'CLICKHOUSE_USER',
      retriable: false,
      message: `CLICKHOUSE_URL: the ClickHouse server at ${shown} refused user "${user}" (${status}): check CLICKHOUSE_USER and CLICKHOUSE_PASSWORD.`,
    }
  if (status >= 500)
    return {
      variable: 'CLICKHOUSE_URL',
      retriable: true,
      message: `CLICKHOUSE_URL: the ClickHouse server at ${shown} answered ${status}: ${bodyStart.trim().slice(0, 200)}. Retrying meanwhile.`,
    }
  return {
    variable: 'CLICKHOUSE_URL',
    retriable: false,
    message: `CLICKHOUSE_URL: ${shown} answered ${status}, not as ClickHouse's HTTP interface (usually port 8123): check the URL.`,
  }
}
