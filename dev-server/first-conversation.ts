import type { ClickHouseClient } from '../core/clickhouse/clickhouse.ts'

// `./run dev` tells how long a newcomer waited for the first stored conversation: from the start
// of the command (VA_RUN_STARTED_MS, set by ./run) to the first row that this run stored. Polls
// the row count once a second; a read per second costs nothing next to the worker's writes.
export interface FirstConversationWatch {
  stop(): void
}

async function countConversations(client: ClickHouseClient, database: string): Promise<number> {
  const result = await client.query({
    query: `SELECT count() AS n FROM ${database}.conversations`,
    format: 'JSONEachRow',
  })
  const [row] = (await result.json()) as { n: string | number }[]
  return Number(row?.n ?? 0)
}

export function watchFirstConversation(
  client: ClickHouseClient,
  database: string,
  onFirst: (storedAt: number) => void,
  intervalMs = 1_000,
): FirstConversationWatch {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const run = async () => {
    const before = await countConversations(client, database).catch(() => undefined)
    const poll = async () => {
      if (stopped) return
      const now = await countConversations(client, database).catch(() => undefined)
      if (before !== undefined && now !== undefined && now > before) {
        onFirst(Date.now())
        return
      }
      timer = setTimeout(poll, intervalMs)
    }
    timer = setTimeout(poll, intervalMs)
  }
  void run()
  return {
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}

/** When the run began: VA_RUN_STARTED_MS (epoch ms, from ./run) when valid, else this process's start. */
export function runStartedAt(
  env: NodeJS.ProcessEnv,
  processStartedAt: number,
): { at: number; since: 'run' | 'process' } {
  const given = Number(env.VA_RUN_STARTED_MS)
  if (Number.isFinite(given) && given > 0 && given <= Date.now()) return { at: given, since: 'run' }
  return { at: processStartedAt, since: 'process' }
}
