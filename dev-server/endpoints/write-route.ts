import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'

// What the dev endpoint's write routes (POST /prices, POST /forget) share: their answer, and taking
// their requests one at a time, each in a session of its own, so that one request's checks and writes never interleave with
// another's (a price check and its insert; an erasure's search, removal and verification).
export interface WriteAnswer {
  status: number
  text: string
}

/** A runner that starts each request once the one before it has finished (failed or not). */
export function oneAtATime(): <T>(run: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve()
  return <T>(run: () => Promise<T>) => {
    const next = queue.then(run, run)
    queue = next
    return next
  }
}

/**
 * Runs one request's work in a session of its own (closed after): 200 with the JSON of its result,
 * 400 with the message of an error `refused` recognises (the request's own fault), else 500.
 */
export async function answerInSession<T>(
  openSession: () => ClickHouseClient,
  work: (session: ClickHouseClient) => Promise<T>,
  refused: (error: unknown) => boolean,
): Promise<WriteAnswer> {
  const session = openSession()
  try {
    return { status: 200, text: JSON.stringify(await work(session)) }
  } catch (error) {
    return { status: refused(error) ? 400 : 500, text: (error as Error).message }
  } finally {
    await session.close()
  }
}
