import { Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../../core/runtime/logger.ts'
import { WorkerStoppingError } from '../../../core/runtime/retry-until.ts'
import { ProgressWatch } from '../observe/progress-watch.ts'
import { createWorkerMetrics } from '../observe/worker-metrics.ts'
import { emptyTableRows, type TableRows } from '../transform/table-rows.ts'
import type { MessageRows } from './batch-rows.ts'
import { BatchWriter, type BatchWriterDeps, type Rejected } from './batch-writer.ts'
import { offsetRanges } from './write-split.ts'

// The writer's decisions (when a write starts, what is retried, split or handed back for the DLQ)
// with ClickHouse's side played by a fake `insert` and time by vitest's fake timers.

interface InsertCall {
  at: number
  ids: string[]
  itemRows: number
  token: string
}

/** A fake insert: records each call, and throws what `refuse` says for the ids of the write. */
function fakeClickHouse(refuse: (ids: string[], call: number) => Error | undefined = () => undefined) {
  const calls: InsertCall[] = []
  let durationMs = 0
  const insert = async (rows: TableRows, token: string) => {
    const ids = rows.conversations.map((row) => row.session_id)
    calls.push({ at: Date.now(), ids, itemRows: rows.conversation_items.length, token })
    if (durationMs > 0) await new Promise((resolve) => setTimeout(resolve, durationMs))
    const error = refuse(ids, calls.length)
    if (error) throw error
    return [{ table: 'conversations' as const, rows: ids.length, seconds: 0 }]
  }
  return { calls, insert, setDuration: (ms: number) => (durationMs = ms) }
}

const clickHouseError = (code: number, message = `code ${code}`) =>
  Object.assign(new Error(message), { clickhouseCode: code })

let offset = 0
function entry(
  id: string,
  options: { items?: number; month?: string; partition?: number } = {},
): MessageRows {
  const rows = emptyTableRows()
  const eventTime = Date.parse(`${options.month ?? '2024-01'}-15T00:00:00Z`)
  ;(rows.conversations as unknown[]).push({ session_id: id, event_time: eventTime })
  for (let index = 0; index < (options.items ?? 0); index++)
    (rows.conversation_items as unknown[]).push({ session_id: id, item_index: index })
  const messageOffset = offset++
  return {
    delivery: { topic: 't', partition: options.partition ?? 0, offset: messageOffset, timestampMs: 0 },
    message: {
      key: Buffer.from(id),
      value: Buffer.from(id),
      timestamp: '0',
      offset: String(messageOffset),
    } as MessageRows['message'],
    rows,
  }
}

function writer(insert: BatchWriterDeps['insert'], options: Partial<BatchWriterDeps> = {}) {
  const controller = new AbortController()
  const failing: boolean[] = []
  const progress = new ProgressWatch()
  progress.onDependencyChange((dependency, now) => {
    if (dependency === 'clickhouse') failing.push(now)
  })
  const keepAlive = vi.fn(async () => {})
  const batchWriter = new BatchWriter({
    insert,
    metrics: createWorkerMetrics(new Registry()),
    logger: createLogger('batch-writer-test', 'silent'),
    signal: controller.signal,
    backoff: { baseMs: 100, maxMs: 1_000 },
    progress,
    maxBatchAgeMs: 100,
    maxBacklogBatchAgeMs: 100,
    maxRows: 1_000,
    ...options,
  })
  const write = (entries: MessageRows[], behind = false) =>
    outcome(batchWriter.write(offsetRanges(entries)[0]!, entries, keepAlive, behind))
  return { write, controller, failing, keepAlive, full: () => batchWriter.full() }
}

/** What a write's promise ended as, once settled. */
function outcome(promise: Promise<Rejected[]>) {
  const state: { rejected?: Rejected[]; error?: unknown; settled: boolean } = { settled: false }
  promise.then(
    (rejected) => Object.assign(state, { rejected, settled: true }),
    (error: unknown) => Object.assign(state, { error, settled: true }),
  )
  return state
}

beforeEach(() => vi.useFakeTimers({ now: 0 }))
afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('BatchWriter: when a write starts', () => {
  it('writes at once when maxRows item rows (plus conversation rows) are waiting, not before', async () => {
    const clickHouse = fakeClickHouse()
    const { write } = writer(clickHouse.insert, { maxRows: 10, maxBatchAgeMs: 10_000 })
    const first = write([entry('a', { items: 4 })]) // 5 rows
    await vi.advanceTimersByTimeAsync(1_000)
    expect(clickHouse.calls).toEqual([])
    const second = write([entry('b', { items: 4 })]) // 10 rows: full
    await vi.advanceTimersByTimeAsync(0)
    expect(clickHouse.calls.map((call) => [call.at, call.ids, call.itemRows])).toEqual([
      [1_000, ['a', 'b'], 8],
    ])
    expect([first.rejected, second.rejected]).toEqual([[], []])
  })

  it('writes when the oldest waiting batch reaches the age bound, taking the younger ones along', async () => {
    const clickHouse = fakeClickHouse()
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 100 })
    write([entry('a')])
    await vi.advanceTimersByTimeAsync(60)
    write([entry('b')])
    await vi.advanceTimersByTimeAsync(39)
    expect(clickHouse.calls).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    // 100 ms after `a`, not 100 ms after the newest batch.
    expect(clickHouse.calls.map((call) => [call.at, call.ids])).toEqual([[100, ['a', 'b']]])
    write([entry('c')])
    await vi.advanceTimersByTimeAsync(100)
    expect(clickHouse.calls.map((call) => [call.at, call.ids])).toEqual([
      [100, ['a', 'b']],
      [200, ['c']],
    ])
  })

  it('starts every write within the age bound of its oldest batch, or as soon as the write before it ends', async () => {
    // A seeded stream: batches arriving 0–80 ms apart, writes taking 0–300 ms (longer than the bound).
    let seed = 7
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const clickHouse = fakeClickHouse()
    const ends: number[] = []
    const timedInsert: BatchWriterDeps['insert'] = async (rows, token) => {
      clickHouse.setDuration(Math.floor(random() * 300))
      const writes = await clickHouse.insert(rows, token)
      ends.push(Date.now())
      return writes
    }
    const bound = 100
    const { write } = writer(timedInsert, { maxBatchAgeMs: bound, maxRows: 12 })
    const submittedAt = new Map<string, number>()
    const results = []
    for (let index = 0; index < 200; index++) {
      const id = `m${index}`
      submittedAt.set(id, Date.now())
      results.push(write([entry(id, { items: Math.floor(random() * 5) })]))
      await vi.advanceTimersByTimeAsync(Math.floor(random() * 80))
    }
    await vi.advanceTimersByTimeAsync(10_000)
    expect(results.every((result) => result.rejected?.length === 0)).toBe(true)
    const written = clickHouse.calls.flatMap((call) => call.ids)
    expect(written.sort()).toEqual([...submittedAt.keys()].sort())
    const late = clickHouse.calls.flatMap((call, index) =>
      call.ids
        .filter((id) => call.at > Math.max(submittedAt.get(id)! + bound, index > 0 ? ends[index - 1]! : 0))
        .map((id) => ({ id, waited: call.at - submittedAt.get(id)! })),
    )
    expect(late).toEqual([])
    // Writes did overlap arrivals, so the bound was exercised beside full writes.
    expect(clickHouse.calls.some((call) => call.ids.length > 1)).toBe(true)
  })

  it('with writes that take no time, no batch waits longer than the bound for its write to start', async () => {
    const clickHouse = fakeClickHouse()
    const bound = 250
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: bound })
    const submittedAt = new Map<string, number>()
    for (let index = 0; index < 60; index++) {
      submittedAt.set(`m${index}`, Date.now())
      write([entry(`m${index}`)])
      await vi.advanceTimersByTimeAsync((index * 37) % 90)
    }
    await vi.advanceTimersByTimeAsync(bound)
    const waits = clickHouse.calls.flatMap((call) => call.ids.map((id) => call.at - submittedAt.get(id)!))
    expect(waits).toHaveLength(60)
    expect(Math.max(...waits)).toBeLessThanOrEqual(bound)
  })
})

describe('BatchWriter: behind a backlog', () => {
  it('a batch with more behind it waits up to the backlog bound for the batches after it: one write', async () => {
    const clickHouse = fakeClickHouse()
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 50, maxBacklogBatchAgeMs: 500 })
    write([entry('m0')], true)
    await vi.advanceTimersByTimeAsync(300)
    write([entry('m1')], true)
    await vi.advanceTimersByTimeAsync(199)
    expect(clickHouse.calls).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(clickHouse.calls.map((call) => [call.at, call.ids])).toEqual([[500, ['m0', 'm1']]])
  })

  it('a batch with nothing behind it keeps the short bound, also after one that was behind', async () => {
    const clickHouse = fakeClickHouse()
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 50, maxBacklogBatchAgeMs: 500 })
    write([entry('m0')], true)
    await vi.advanceTimersByTimeAsync(100)
    write([entry('m1')], false)
    await vi.advanceTimersByTimeAsync(50)
    expect(clickHouse.calls.map((call) => [call.at, call.ids])).toEqual([[150, ['m0', 'm1']]])
  })

  it('writes at once when told no more can come (a batch waits for room), whatever the bound', async () => {
    const clickHouse = fakeClickHouse()
    const { write, full } = writer(clickHouse.insert, { maxBacklogBatchAgeMs: 500 })
    write([entry('m0')], true)
    write([entry('m1')], true)
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls).toHaveLength(0)
    full()
    await vi.advanceTimersByTimeAsync(0)
    expect(clickHouse.calls.map((call) => [call.at, call.ids])).toEqual([[10, ['m0', 'm1']]])
  })

  it('told no more can come while a write runs: the batches waiting go as soon as it ends, not at their bound', async () => {
    const clickHouse = fakeClickHouse()
    clickHouse.setDuration(200)
    const { write, full } = writer(clickHouse.insert, { maxBatchAgeMs: 50, maxBacklogBatchAgeMs: 500 })
    write([entry('m0')])
    await vi.advanceTimersByTimeAsync(60) // m0's write runs until 250
    write([entry('m1')], true)
    write([entry('m2')], true)
    full() // the batches after them wait for the room m0's commit gives back
    await vi.advanceTimersByTimeAsync(200)
    expect(clickHouse.calls.map((call) => [call.at, call.ids])).toEqual([
      [50, ['m0']],
      [250, ['m1', 'm2']],
    ])
  })

  it('told no more can come with nothing waiting: no write', async () => {
    const clickHouse = fakeClickHouse()
    const { full } = writer(clickHouse.insert)
    full()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(clickHouse.calls).toEqual([])
  })
})

describe('BatchWriter: failures', () => {
  it('retries a transient failure with growing backoff, the same token each time, until ClickHouse acknowledges', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1) // the full backoff ceiling: 100 ms, then 200 ms
    const clickHouse = fakeClickHouse((_, call) => (call <= 2 ? new Error('connection refused') : undefined))
    const { write, failing, keepAlive } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const result = write([entry('a'), entry('b')])
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls).toHaveLength(1)
    expect(failing).toEqual([true])
    await vi.advanceTimersByTimeAsync(99)
    expect(clickHouse.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(clickHouse.calls).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(199)
    expect(result.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(clickHouse.calls.map((call) => call.at)).toEqual([10, 110, 310])
    expect(new Set(clickHouse.calls.map((call) => call.token)).size).toBe(1)
    expect(keepAlive).toHaveBeenCalledTimes(2)
    expect(failing).toEqual([true, false])
    expect(result.rejected).toEqual([])
  })

  it('on shutdown fails every waiting batch (nothing to commit) and stops retrying', async () => {
    const clickHouse = fakeClickHouse(() => new Error('connection refused'))
    const { write, controller } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const retrying = write([entry('a')])
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls).toHaveLength(1)
    const waiting = write([entry('b')]) // queued behind the write that keeps failing
    controller.abort()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(retrying.error).toBeInstanceOf(WorkerStoppingError)
    expect(waiting.error).toBeInstanceOf(WorkerStoppingError)
    expect(clickHouse.calls).toHaveLength(1)
  })

  it('on shutdown before the age bound, the waiting batches fail without a write', async () => {
    const clickHouse = fakeClickHouse()
    const { write, controller } = writer(clickHouse.insert, { maxBatchAgeMs: 100 })
    const waiting = [write([entry('a')]), write([entry('b')])]
    controller.abort()
    await vi.advanceTimersByTimeAsync(100)
    expect(waiting.map((result) => result.error instanceof WorkerStoppingError)).toEqual([true, true])
    expect(clickHouse.calls).toEqual([])
  })

  it('splits a write refused for its shape by ClickHouse partition, then message by message', async () => {
    // Refused for shape: any write spanning two months, and month 2024-02 with more than one message.
    const months: Record<string, string> = { a: '2024-01', b: '2024-02', c: '2024-01', d: '2024-02' }
    const clickHouse = fakeClickHouse((ids) => {
      const spread = new Set(ids.map((id) => months[id]))
      if (spread.size > 1) return clickHouseError(252, 'Too many partitions for single INSERT block')
      if (spread.has('2024-02') && ids.length > 1) return clickHouseError(396)
      return undefined
    })
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const first = write(['a', 'b'].map((id) => entry(id, { month: months[id] })))
    const second = write(['c', 'd'].map((id) => entry(id, { month: months[id], partition: 1 })))
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls.map((call) => call.ids)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['a', 'c'],
      ['b', 'd'],
      ['b'],
      ['d'],
    ])
    expect(new Set(clickHouse.calls.map((call) => call.token)).size).toBe(5)
    expect([first.rejected, second.rejected]).toEqual([[], []])
  })

  it('writes a write refused for its data message by message; only the refused message comes back, to its own batch', async () => {
    const refusal = clickHouseError(27, 'Cannot parse input')
    const clickHouse = fakeClickHouse((ids) => (ids.includes('bad') ? refusal : undefined))
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const bad = entry('bad')
    const first = write([entry('a'), bad, entry('b')])
    const second = write([entry('c')])
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls.map((call) => call.ids)).toEqual([
      ['a', 'bad', 'b', 'c'],
      ['a'],
      ['bad'],
      ['b'],
      ['c'],
    ])
    expect(first.rejected).toEqual([{ entry: bad, error: 'Cannot parse input' }])
    expect(second.rejected).toEqual([])
  })

  it('writes a refused one-partition write message by message at once (no partition split to try)', async () => {
    // Every message of one month: splitting by partition cannot help, so the writer goes per message.
    const tooLarge = clickHouseError(396, 'Limit for result exceeded')
    const clickHouse = fakeClickHouse((ids) => (ids.length > 1 ? tooLarge : undefined))
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const result = write([entry('a'), entry('b'), entry('c')])
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls.map((call) => call.ids)).toEqual([['a', 'b', 'c'], ['a'], ['b'], ['c']])
    expect(result.rejected).toEqual([])
  })

  it('hands back for the DLQ a message refused for its shape even alone, with the error; the others are stored', async () => {
    const clickHouse = fakeClickHouse((ids) =>
      ids.includes('huge') ? clickHouseError(252, 'Too many partitions for single INSERT block') : undefined,
    )
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const huge = entry('huge')
    const result = write([entry('a'), huge, entry('b')])
    await vi.advanceTimersByTimeAsync(10)
    expect(clickHouse.calls.map((call) => call.ids)).toEqual([['a', 'huge', 'b'], ['a'], ['huge'], ['b']])
    expect(result.rejected).toEqual([{ entry: huge, error: 'Too many partitions for single INSERT block' }])
  })

  it('retries a transient failure of a smaller write with its own token, and hands back nothing for it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1) // backoff: 100 ms
    let smallFailures = 0
    const clickHouse = fakeClickHouse((ids) => {
      if (ids.includes('bad')) return clickHouseError(27, 'Cannot parse input')
      // The first time `b` is written alone, ClickHouse is away for a moment.
      if (ids.length === 1 && ids[0] === 'b' && smallFailures++ === 0) return new Error('connection reset')
      return undefined
    })
    const { write, failing } = writer(clickHouse.insert, { maxBatchAgeMs: 10 })
    const bad = entry('bad')
    const result = write([entry('a'), bad, entry('b')])
    await vi.advanceTimersByTimeAsync(10)
    expect(result.settled).toBe(false) // `b` waits for its retry
    await vi.advanceTimersByTimeAsync(100)
    const calls = clickHouse.calls.map((call) => call.ids)
    expect(calls).toEqual([['a', 'bad', 'b'], ['a'], ['bad'], ['b'], ['b']])
    const tokensOfB = clickHouse.calls.filter((call) => call.ids[0] === 'b').map((call) => call.token)
    expect(new Set(tokensOfB).size).toBe(1)
    expect(failing).toEqual([true, false])
    expect(result.rejected).toEqual([{ entry: bad, error: 'Cannot parse input' }])
  })

  it('counts the rows ClickHouse acknowledged per table, and each split by its reason', async () => {
    const registry = new Registry()
    const metrics = createWorkerMetrics(registry)
    const clickHouse = fakeClickHouse((ids) => (ids.includes('bad') ? clickHouseError(27) : undefined))
    const { write } = writer(clickHouse.insert, { maxBatchAgeMs: 10, metrics })
    write([entry('a'), entry('bad'), entry('b')])
    await vi.advanceTimersByTimeAsync(10)
    const value = async (name: string, labels: Record<string, string>) =>
      (await registry.getSingleMetric(name)!.get()).values.find((sample) =>
        Object.entries(labels).every(([key, label]) => sample.labels[key] === label),
      )?.value
    // Stored alone: a and b (one conversation row each); the whole write and `bad` were refused.
    expect(await value('worker_rows_inserted_total', { table: 'conversations' })).toBe(2)
    expect(await value('worker_clickhouse_write_splits_total', { reason: 'data' })).toBe(1)
    expect(await value('worker_clickhouse_write_splits_total', { reason: 'shape' })).toBeUndefined()
  })
})
