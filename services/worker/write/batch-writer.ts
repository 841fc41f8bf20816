import { classifyClickHouseError } from '../../../core/clickhouse/clickhouse-errors.ts'
import type { BackoffSettings } from '../../../core/runtime/backoff.ts'
import type { Logger } from '../../../core/runtime/logger.ts'
import { retryUntil } from '../../../core/runtime/retry-until.ts'
import type { ProgressWatch } from '../observe/progress-watch.ts'
import type { WorkerMetrics } from '../observe/worker-metrics.ts'
import type { TableRows } from '../transform/table-rows.ts'
import { type MessageRows, mergeRows } from './batch-rows.ts'
import type { TableWrite } from './clickhouse-insert.ts'
import { insertToken, type OffsetRange } from './insert-token.ts'
import { offsetRanges, splitByPartition } from './write-split.ts'

// Writes the rows of partition batches to ClickHouse, batching by time and size: the batches of
// one Kafka fetch (handled concurrently, one per partition) join one insert per table instead of
// one each, which keeps parts few and large. A write that fails transiently is retried with
// backoff, with consumption paused, until ClickHouse acknowledges it (or the worker stops: then
// every waiting batch fails and commits nothing). A write refused for its shape (e.g. more
// partitions than max_partitions_per_insert_block) is split by partition, then by message; one
// refused for its data is written message by message. The messages ClickHouse still refuses on
// their own come back for the DLQ (core/clickhouse/clickhouse-errors.ts says which error is which).
export interface Rejected {
  entry: MessageRows
  error: string
}

export interface BatchWriterDeps {
  insert: (rows: TableRows, token: string) => Promise<TableWrite[]>
  metrics: WorkerMetrics
  logger: Logger
  signal: AbortSignal
  backoff: BackoffSettings
  /** Where the worker knows whether ClickHouse fails: told when inserts start failing and when one succeeds again. */
  progress: Pick<ProgressWatch, 'dependencyFailing'>
  /**
   * Freshness bound: a write starts at the latest this long after its oldest waiting batch was
   * submitted (or, if a write is still running then, as soon as it ends). Batches submitted
   * meanwhile join that write. WORKER_MAX_BATCH_AGE_MS.
   */
  maxBatchAgeMs: number
  /**
   * The bound instead, for a batch Kafka holds more messages behind (a backlog): its messages are
   * late already, and waiting for the batches behind it makes fewer, larger writes, so fewer parts
   * for ClickHouse to merge (bench/results/worker.md, "Where the time goes"). A batch with nothing
   * behind it keeps maxBatchAgeMs, also when it joins batches that were behind.
   */
  maxBacklogBatchAgeMs: number
  /** A write starts at once when this many item rows are waiting. */
  maxRows: number
}

interface Submission {
  range: OffsetRange
  entries: MessageRows[]
  keepAlive: () => Promise<void>
  resolve: (rejected: Rejected[]) => void
  reject: (error: unknown) => void
}

export class BatchWriter {
  private pending: Submission[] = []
  private pendingRows = 0
  private timer: NodeJS.Timeout | undefined
  private timerDue = 0
  private flushing: Promise<void> = Promise.resolve()
  private readonly deps: BatchWriterDeps

  constructor(deps: BatchWriterDeps) {
    this.deps = deps
  }

  /**
   * Resolves once ClickHouse acknowledged these rows; returns the messages it refused. `behind`:
   * Kafka holds more messages after this batch (maxBacklogBatchAgeMs bounds its wait).
   */
  write(
    range: OffsetRange,
    entries: MessageRows[],
    keepAlive: () => Promise<void>,
    behind = false,
  ): Promise<Rejected[]> {
    const done = new Promise<Rejected[]>((resolve, reject) => {
      this.pending.push({ range, entries, keepAlive, resolve, reject })
    })
    this.pendingRows += entries.reduce((sum, entry) => sum + entry.rows.conversation_items.length + 1, 0)
    if (this.pendingRows >= this.deps.maxRows) this.scheduleFlush(0)
    else this.scheduleFlush(behind ? this.deps.maxBacklogBatchAgeMs : this.deps.maxBatchAgeMs)
    return done
  }

  /**
   * The consumer can hand over nothing more until a write ends (a batch waits for room,
   * batch-slots.ts): what waits is written as soon as the write before it ends, whatever its bound.
   * Waiting longer would gather nothing, only delay it.
   */
  full(): void {
    if (this.pending.length > 0) this.scheduleFlush(0)
  }

  private scheduleFlush(delayMs: number): void {
    // A timer already running that is due no later was set by an older submission: it bounds the age.
    const due = Date.now() + delayMs
    if (this.timer && due >= this.timerDue) return
    clearTimeout(this.timer)
    this.timerDue = due
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.flushing = this.flushing.then(() => this.flush())
    }, delayMs)
  }

  private async flush(): Promise<void> {
    const submissions = this.pending
    if (submissions.length === 0) return
    this.pending = []
    this.pendingRows = 0
    try {
      const rejected = await this.writeAll(submissions)
      for (const submission of submissions)
        submission.resolve(rejected.filter((item) => submission.entries.includes(item.entry)))
    } catch (error) {
      for (const submission of submissions) submission.reject(error)
    }
  }

  private async writeAll(submissions: Submission[]): Promise<Rejected[]> {
    const entries = submissions.flatMap((submission) => submission.entries)
    const keepAlive = () => submissions[0]!.keepAlive()
    this.deps.metrics.batchMessages.observe(entries.length)
    return this.writeOrSplit(entries, insertToken(submissions.map((s) => s.range)), 'whole', keepAlive)
  }

  /** One write; refused for its shape or data, the same rows again in smaller writes. */
  private async writeOrSplit(
    entries: MessageRows[],
    token: string,
    level: 'whole' | 'partition' | 'message',
    keepAlive: () => Promise<void>,
  ): Promise<Rejected[]> {
    try {
      await this.acknowledged(mergeRows(entries), token, keepAlive)
      return []
    } catch (error) {
      const kind = classifyClickHouseError(error)
      if (kind.class === 'transient') throw error
      const message = (error as Error).message
      if (level === 'message') return entries.map((entry) => ({ entry, error: message }))
      const byPartition = kind.class === 'shape' && level === 'whole' ? splitByPartition(entries) : []
      const [groups, next] =
        byPartition.length > 1
          ? [byPartition, 'partition' as const]
          : [entries.map((entry) => [entry]), 'message' as const]
      this.deps.metrics.writeSplits.inc({ reason: kind.class })
      this.deps.logger.warn(
        { error: message, code: kind.code, messages: entries.length, writes: groups.length, by: next },
        `ClickHouse refused a write for its ${kind.class}: writing it again in smaller writes`,
      )
      const rejected: Rejected[] = []
      for (const group of groups)
        rejected.push(...(await this.writeOrSplit(group, insertToken(offsetRanges(group)), next, keepAlive)))
      return rejected
    }
  }

  private async acknowledged(rows: TableRows, token: string, keepAlive: () => Promise<void>): Promise<void> {
    const { metrics, logger } = this.deps
    const writes = await retryUntil(() => this.deps.insert(rows, token), {
      signal: this.deps.signal,
      backoff: this.deps.backoff,
      giveUp: (error) => classifyClickHouseError(error).class !== 'transient',
      keepAlive,
      onFailure: (error, attempt, delayMs) => {
        metrics.retries.inc({ operation: 'clickhouse_insert' })
        this.deps.progress.dependencyFailing('clickhouse', true)
        const message = (error as Error).message
        if (classifyClickHouseError(error).needsOperator)
          logger.error(
            { attempt, retryInMs: delayMs, error: message },
            'ClickHouse refuses the worker (missing table or database, credentials, read-only): an operator ' +
              'must fix this (`voice-analytics migrate`, CLICKHOUSE_* settings); retrying until then',
          )
        else
          logger.warn({ attempt, retryInMs: delayMs, error: message }, 'ClickHouse insert failed: retrying')
      },
    })
    if (this.deps.progress.dependencyFailing('clickhouse', false))
      logger.info('ClickHouse acknowledges inserts again: resuming')
    for (const write of writes) {
      metrics.rowsInserted.inc({ table: write.table }, write.rows)
      metrics.insertDuration.observe({ table: write.table }, write.seconds)
    }
  }
}
