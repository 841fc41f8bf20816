import { describe, expect, it } from 'vitest'
import { createLogger } from '../core/logger.ts'
import { createMetricsRegistry } from '../core/metrics.ts'
import type { PartitionBatch } from '../core/partition-batches.ts'
import { defaultBackoff } from './backoff.ts'
import { type BatchProcessorDeps, createBatchProcessor } from './batch-processor.ts'
import type { BatchWriter } from './batch-writer.ts'
import { ProgressWatch } from './progress-watch.ts'
import { createWorkerMetrics } from './worker-metrics.ts'

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

/** A processor whose every message is poison and whose dead letters are never acknowledged: each batch stays held. */
function holdingProcessor(maxPendingBytes: number) {
  const decoded: number[] = []
  let fullCalls = 0
  const processor = createBatchProcessor({
    decoder: {
      decode: (value) => {
        decoded.push(value.length)
        throw new Error('not avro') // poison: the batch then waits on its dead letter
      },
      registryHoldsSubject: async () => true,
    },
    progress: new ProgressWatch(),
    // No rows to write (every message is poison); told when no more can come.
    writer: { full: () => fullCalls++ } as unknown as BatchWriter,
    // The dead-letter topic never acknowledges: every batch stays held.
    producer: { sendBatch: () => new Promise(() => {}) },
    deadLetterTopic: 'dlq',
    deadLetterMaxBytes: async () => undefined,
    metrics: createWorkerMetrics(createMetricsRegistry('worker')),
    logger: createLogger('test', 'silent'),
    signal: new AbortController().signal,
    backoff: defaultBackoff,
    commit: async () => {},
    committed: () => {},
    assigned: () => {},
    owns: () => true,
    seek: () => {},
    maxPendingBytes,
  } satisfies BatchProcessorDeps)
  return { processor, decoded, fullCalls: () => fullCalls }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

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
})
