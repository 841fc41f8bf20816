import type { ClusterTopicMetadata, Consumer } from '@platformatic/kafka'

// One Fetch request for partitions of one topic, as the worker's consumer (kafka-consumer.ts) and
// the group-less topic reader (topic-reader.ts) both send it: the library's fetch goes to one
// broker, so the partitions are grouped by their leader first, and names the topic by its id.

export type FetchResponse = Awaited<ReturnType<Consumer['fetch']>>

export interface FetchLimits {
  maxBytesPerPartition: number
  maxBytes: number
  minBytes: number
  maxWaitMs: number
}

/** The partitions to fetch (partition -> offset) by their leader; a partition without a leader waits. */
export function partitionsByLeader(
  metadata: ClusterTopicMetadata,
  positions: Iterable<readonly [number, bigint]>,
): Map<number, Map<number, bigint>> {
  const byLeader = new Map<number, Map<number, bigint>>()
  for (const [partition, offset] of positions) {
    const leader = metadata.partitions[partition]?.leader
    if (leader === undefined || leader < 0) continue
    const requested = byLeader.get(leader) ?? new Map<number, bigint>()
    byLeader.set(leader, requested)
    requested.set(partition, offset)
  }
  return byLeader
}

/** Fetches `requested` (partition -> offset) of the topic `topicId` from the broker `node`. */
export function fetchFromLeader(
  consumer: Consumer,
  node: number,
  topicId: string,
  requested: ReadonlyMap<number, bigint>,
  limits: FetchLimits,
): Promise<FetchResponse> {
  return consumer.fetch({
    node,
    topics: [
      {
        topicId,
        partitions: [...requested].map(([partition, fetchOffset]) => ({
          partition,
          fetchOffset,
          partitionMaxBytes: limits.maxBytesPerPartition,
          currentLeaderEpoch: -1,
          lastFetchedEpoch: -1,
        })),
      },
    ],
    maxWaitTime: limits.maxWaitMs,
    minBytes: limits.minBytes,
    maxBytes: limits.maxBytes,
  })
}
