import { describe, expect, it } from 'vitest'
import type { PartitionBatch } from '../../../core/kafka/partition-batches.ts'
import { defaultBackoff } from '../../../core/runtime/backoff.ts'
import { createLogger } from '../../../core/runtime/logger.ts'
import { createMetricsRegistry } from '../../../core/runtime/metrics.ts'
import { ProgressWatch } from '../observe/progress-watch.ts'
import { createWorkerMetrics } from '../observe/worker-metrics.ts'
import { defaultTurnTaking } from '../transform/turn-taking.ts'
import type { BatchWriter } from '../write/batch-writer.ts'
import { type BatchProcessorDeps, createBatchProcessor } from './batch-processor.ts'

// The batch processor's memory bound: a batch waits for room among maxPendingBytes before it is
// decoded, so a waiting batch holds its bytes only, never its decoded events and rows; and the
// bound is bytes, so the small batches of a steady rate are not held back by a count.
const batch = (partition: number, valueBytes = 8): PartitionBatch => ({
  topic: 't',
  partition,
  messages: [{ key: null, value: Buffer.alloc(valueBytes, 1), offset: '0', timestamp: '0' }],
  highWatermark: '1',
  firstOffset: '0',
  lastOffset: '0',
  offsetLag: '0',
})

/** Deps of a processor whose every message is poison (no rows to write), the I/O replaced by `overrides`. */
function poisonDeps(overrides: Partial<BatchProcessorDeps>, onDecode: (bytes: number) => void = () => {}) {
  return {
    decoder: {
      decode: (value) => {
        onDecode(value.length)
        throw new Error('not avro') // poison: the batch then waits on its dead letter
      },
      registryHoldsSubject: async () => true,
    },
    progress: new ProgressWatch(),
    writer: { full: () => {} } as unknown as BatchWriter,
    producer: { sendBatch: async () => {} },
    deadLetterTopic: 'dlq',
    deadLetterMaxBytes: async () => undefined,
    metrics: createWorkerMetrics(createMetricsRegistry('worker')),
    logger: createLogger('test', 'silent'),
    signal: new AbortController().signal,
    backoff: defaultBackoff,
    turnTaking: defaultTurnTaking,
    commit: async () => {},
    committed: () => {},
    assigned: () => {},
    readingFrom: () => {},
    owns: () => true,
    seek: () => {},
    maxPendingBytes: 1024 * 1024,
    ...overrides,
  } satisfies BatchProcessorDeps
}

/** A processor whose dead letters are never acknowledged: each batch stays held. */
function holdingProcessor(maxPendingBytes: number) {
  const decoded: number[] = []
  let fullCalls = 0
  const processor = createBatchProcessor(
    poisonDeps(
      {
        // Told when no more batches can join the write in waiting.
        writer: { full: () => fullCalls++ } as unknown as BatchWriter,
        // The dead-letter topic never acknowledges: every batch stays held.
        producer: { sendBatch: () => new Promise(() => {}) },
        maxPendingBytes,
      },
      (bytes) => decoded.push(bytes),
    ),
  )
  return { processor, decoded, fullCalls: () => fullCalls }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

const batchAt = (partition: number, offset: number): PartitionBatch => ({
  ...batch(partition),
  messages: [{ key: null, value: Buffer.alloc(8, 1), offset: String(offset), timestamp: '0' }],
  highWatermark: String(offset + 1),
  firstOffset: String(offset),
  lastOffset: String(offset),
})

/** A processor whose poison is dead-lettered at once; each commit waits to be settled by the test. */
function committingProcessor() {
  const commits: Array<{ offset: string; settle: (error?: Error) => void }> = []
  const seeks: string[] = []
  const countsKeep: string[][] = []
  const readings: string[] = []
  const processor = createBatchProcessor(
    poisonDeps({
      commit: (_topic, _partition, offset) =>
        new Promise<void>((resolve, reject) =>
          commits.push({ offset, settle: (error) => (error ? reject(error) : resolve()) }),
        ),
      assigned: (assigned) => countsKeep.push([...assigned]),
      readingFrom: (_topic, partition, offset) => readings.push(`${partition}@${offset}`),
      seek: (_topic, _partition, offset) => seeks.push(offset),
    }),
  )
  return { processor, commits, seeks, countsKeep, readings }
}

const settled = async (until: () => boolean) => {
  for (let turn = 0; turn < 100 && !until(); turn++) await tick()
}

describe('createBatchProcessor', () => {
  it('does not decode a batch while the bound in bytes is held', async () => {
    const { processor, decoded, fullCalls } = holdingProcessor(10)
    await processor.eachBatch(batch(0, 8))
    expect(decoded).toEqual([8])
    expect(fullCalls()).toBe(0)
    const second = processor.eachBatch(batch(1, 7))
    await tick() // the decode would have started by now
    expect(decoded).toEqual([8]) // the second batch waits, undecoded
    expect(fullCalls()).toBe(1) // and the writer knows no more can come: it need not wait for more
    void second
  })

  it('decodes the small batches of two fetches while the ones before them are held, as long as their bytes fit', async () => {
    // A steady rate: 6 partitions, a few messages each per fetch. A count of 8 batches would hold back
    // the 9th to 12th until the first ones committed; their bytes are far below the bound.
    const { processor, decoded, fullCalls } = holdingProcessor(8 * 1024 * 1024)
    for (let partition = 0; partition < 12; partition++)
      void processor.eachBatch(batch(partition % 6, 200 * 1024))
    await tick()
    expect(decoded).toHaveLength(12)
    expect(fullCalls()).toBe(0)
  })

  it('a commit refused after a rebalance that did not keep its partition seeks nothing: the new reading goes on', async () => {
    const { processor, commits, seeks } = committingProcessor()
    await processor.eachBatch(batchAt(0, 100))
    await settled(() => commits.length === 1)
    expect(commits.map((commit) => commit.offset)).toEqual(['101'])
    // The group moved on while that commit was in flight: t/0 is not kept (it may be assigned
    // again, read afresh from its committed offset, 500), and Kafka refuses the old commit.
    processor.assigned({ assigned: new Set(['t/0']), kept: new Set() })
    await processor.eachBatch(batchAt(0, 500))
    commits[0]!.settle(new Error('t/0 was assigned elsewhere before its commit: not committed'))
    await settled(() => commits.length === 2)
    // Seeking back to 100 would make every batch of the new reading stale: never committed, a stall.
    expect(seeks).toEqual([])
    expect(commits.map((commit) => commit.offset)).toEqual(['101', '501'])
    commits[1]!.settle()
    await processor.drain()
  })

  it('a rebalance that keeps a partition leaves its batches to commit', async () => {
    const { processor, commits, countsKeep } = committingProcessor()
    await processor.eachBatch(batchAt(0, 100))
    await processor.eachBatch(batchAt(1, 100))
    await settled(() => commits.length === 2)
    commits[0]!.settle()
    commits[1]!.settle()
    processor.assigned({ assigned: new Set(['t/0', 't/1']), kept: new Set(['t/0']) })
    await processor.eachBatch(batchAt(0, 101))
    await processor.eachBatch(batchAt(1, 101)) // t/1 read afresh: its own commit goes too
    await settled(() => commits.length === 4)
    expect(commits.map((commit) => commit.offset)).toEqual(['101', '101', '102', '102'])
    // The domain counts keep the decisions of every partition still assigned, read afresh or not: a
    // commit covering them (one accepted late, or the new reading's) counts each once.
    expect(countsKeep).toEqual([['t/0', 't/1']])
    for (const commit of commits.slice(2)) commit.settle()
    await processor.drain()
  })

  it('tells where each reading of a partition starts: first assigned, and read afresh after a rebalance', async () => {
    const { processor, commits, readings } = committingProcessor()
    await processor.eachBatch(batchAt(0, 100))
    await processor.eachBatch(batchAt(0, 101)) // the same reading goes on
    await settled(() => commits.length === 1)
    commits[0]!.settle(new Error('refused')) // a failed commit seeks back: still the same reading
    await processor.eachBatch(batchAt(0, 100))
    expect(readings).toEqual(['0@100'])
    processor.assigned({ assigned: new Set(['t/0']), kept: new Set() })
    await processor.eachBatch(batchAt(0, 250)) // read afresh from its committed offset
    expect(readings).toEqual(['0@100', '0@250'])
    for (const commit of commits) commit.settle()
    await settled(() => commits.length >= 3)
    for (const commit of commits) commit.settle()
  })

  it('waits for a registry that does not answer (a DependencyError, by class), then goes on with the batch', async () => {
    let decodes = 0
    const commits: string[] = []
    const processor = createBatchProcessor(
      poisonDeps({
        decoder: {
          decode: () => {
            decodes++
            // First the registry's 503 (decodeMessage makes it a DependencyError), then poison.
            throw decodes === 1
              ? Object.assign(new Error('Service Unavailable'), { status: 503 })
              : new Error('not avro')
          },
          registryHoldsSubject: async () => true,
        },
        backoff: { baseMs: 1, maxMs: 1 },
        commit: async (_topic, _partition, offset) => {
          commits.push(offset)
        },
      }),
    )
    await processor.eachBatch(batchAt(0, 100))
    await processor.drain()
    expect(decodes).toBe(2)
    expect(commits).toEqual(['101'])
  })
})
