import { describe, expect, it } from 'vitest'
import { createLogger } from '../core/logger.ts'
import { createMetricsRegistry } from '../core/metrics.ts'
import type { PartitionBatch } from '../core/partition-batches.ts'
import { defaultBackoff } from './backoff.ts'
import { createBatchProcessor } from './batch-processor.ts'
import type { BatchWriter } from './batch-writer.ts'
import { ProgressWatch } from './progress-watch.ts'
import { createWorkerMetrics } from './worker-metrics.ts'

// The batch processor's memory bound: a batch waits for room among maxPendingBatches before it is
// decoded, so a waiting batch holds its bytes only, never its decoded events and rows.
const batch = (partition: number): PartitionBatch => ({
  topic: 't',
  partition,
  messages: [{ key: null, value: Buffer.from('not avro'), offset: '0', timestamp: '0' }],
  highWatermark: '1',
  firstOffset: '0',
  lastOffset: '0',
  offsetLag: '0',
})

describe('createBatchProcessor', () => {
  it('does not decode a batch while maxPendingBatches batches are held', async () => {
    const decoded: number[] = []
    let current = -1
    const processor = createBatchProcessor({
      decoder: {
        decode: () => {
          decoded.push(current)
          throw new Error('not avro') // poison: the batch then waits on its dead letter
        },
        registryHoldsSubject: async () => true,
      },
      progress: new ProgressWatch(),
      writer: {} as BatchWriter, // no rows to write: every message is poison
      // The dead-letter topic never acknowledges: the first batch stays held.
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
      maxPendingBatches: 1,
    })
    current = 0
    await processor.eachBatch(batch(0))
    expect(decoded).toEqual([0])
    current = 1
    const second = processor.eachBatch(batch(1))
    await new Promise((resolve) => setImmediate(resolve)) // the decode would have started by now
    expect(decoded).toEqual([0]) // the second batch waits, undecoded
    void second
  })
})
