import { describe, expect, it } from 'vitest'
import { retentionSpec, topicsToCreate } from './topic-creation.ts'
import { defaultBodyLimitBytes, topicMessageLimit } from './topics.ts'

// Every Kafka admin of the product (kafka-admin.ts: the ingress, the worker, the tests) creates what this decides.
describe('topicsToCreate', () => {
  it('leaves existing topics alone and gives new ones 6 partitions and the given message limit', () => {
    expect(topicsToCreate(['a'], [{ topic: 'a' }, { topic: 'b' }], 5_000)).toEqual([
      { topic: 'b', numPartitions: 6, configEntries: [{ name: 'max.message.bytes', value: '5000' }] },
    ])
  })
  it("keeps a spec's own max.message.bytes and other settings", () => {
    const own = [
      { name: 'retention.ms', value: '1000' },
      { name: 'max.message.bytes', value: '42' },
    ]
    expect(topicsToCreate([], [{ topic: 'c', numPartitions: 2, configEntries: own }], 5_000)).toEqual([
      { topic: 'c', numPartitions: 2, configEntries: own },
    ])
    expect(
      topicsToCreate([], [{ topic: 'd', configEntries: [{ name: 'retention.ms', value: '1000' }] }], 5_000),
    ).toEqual([
      {
        topic: 'd',
        numPartitions: 6,
        configEntries: [
          { name: 'retention.ms', value: '1000' },
          { name: 'max.message.bytes', value: '5000' },
        ],
      },
    ])
  })
  it('defaults to what the default body limit needs', () => {
    expect(topicsToCreate([], [{ topic: 'e' }])[0]?.configEntries).toEqual([
      { name: 'max.message.bytes', value: String(topicMessageLimit(defaultBodyLimitBytes)) },
    ])
  })
})

describe('retentionSpec', () => {
  it('keeps messages for the hours given, beside the message limit', () => {
    expect(topicsToCreate([], [retentionSpec('a', 168)], 5_000)).toEqual([
      {
        topic: 'a',
        numPartitions: 6,
        configEntries: [
          { name: 'retention.ms', value: '604800000' },
          { name: 'max.message.bytes', value: '5000' },
        ],
      },
    ])
  })
})
