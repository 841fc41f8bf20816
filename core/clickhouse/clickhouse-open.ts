import {
  type ClickHouseClient,
  type ClickHouseSettings,
  createClickHouse,
  describeClickHouse,
} from './clickhouse.ts'
import { ClickHouseBusyError } from './clickhouse-errors.ts'

// Opening ClickHouse from a command line tool: an embedded data directory that another process
// owns (a worker, `npm run dev`) is refused by chDB with "Cannot lock file"; say what to do instead.
export function openClickHouse(settings: ClickHouseSettings, whatInstead: string): ClickHouseClient {
  try {
    return createClickHouse(settings)
  } catch (error) {
    if (/Cannot lock file|Another server instance/i.test((error as Error).message))
      throw new ClickHouseBusyError(
        `${describeClickHouse(settings)} is in use by another process (a worker or \`npm run dev\`); ${whatInstead}`,
      )
    throw error
  }
}
