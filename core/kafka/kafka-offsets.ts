import { type Admin, ListOffsetTimestamps } from '@platformatic/kafka'

// Offsets through the admin (@platformatic/kafka): where each partition of a topic starts and
// ends, where a time falls, and what a consumer group committed (read, or set before it starts).
// `replay` plans and follows a re-read with them, `forget` bounds its search of a topic, and the
// tests wait on commits.

export interface PartitionOffsets {
  partition: number
  /** The first offset the partition still holds. */
  low: bigint
  /** The high watermark: the offset the next message will get. */
  high: bigint
}

async function partitionIndexes(admin: Admin, topic: string): Promise<number[]> {
  const { topics } = await admin.metadata({ topics: [topic] })
  const count = topics.get(topic)?.partitionsCount
  if (count === undefined) throw new Error(`no metadata for topic ${topic}`)
  return Array.from({ length: count }, (_, partition) => partition)
}

/** The offset each partition answers for `timestamp` (a time in ms, or one of ListOffsetTimestamps). */
async function listedOffsets(admin: Admin, topic: string, timestamp: bigint): Promise<Map<number, bigint>> {
  const partitions = await partitionIndexes(admin, topic)
  const [listed] = await admin.listOffsets({
    topics: [
      { name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) },
    ],
  })
  return new Map((listed?.partitions ?? []).map((entry) => [entry.partitionIndex, entry.offset]))
}

/** Each partition's first and next offset, in partition order. */
export async function partitionOffsets(admin: Admin, topic: string): Promise<PartitionOffsets[]> {
  const low = await listedOffsets(admin, topic, ListOffsetTimestamps.EARLIEST)
  const high = await listedOffsets(admin, topic, ListOffsetTimestamps.LATEST)
  return [...high]
    .map(([partition, next]) => ({ partition, low: low.get(partition) ?? 0n, high: next }))
    .sort((a, b) => a.partition - b.partition)
}

/** Each partition's first offset with a timestamp at or after `ms`; -1 where none is. */
export function offsetsAtTime(admin: Admin, topic: string, ms: number): Promise<Map<number, bigint>> {
  return listedOffsets(admin, topic, BigInt(ms))
}

/** The offsets `groupId` committed on `topic`, by partition; a partition without a commit is absent. */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<Map<number, bigint>> {
  const [group] = await admin.listConsumerGroupOffsets({ groups: [groupId] })
  const committed = new Map<number, bigint>()
  for (const entry of group?.topics ?? [])
    if (entry.name === topic)
      for (const partition of entry.partitions)
        if (partition.committedOffset >= 0n)
          committed.set(partition.partitionIndex, partition.committedOffset)
  return committed
}

/** Commits `offsets` (partition -> next offset to read) for `groupId`, which must have no member running. */
export async function setCommittedOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
  offsets: ReadonlyMap<number, bigint>,
): Promise<void> {
  await admin.alterConsumerGroupOffsets({
    groupId,
    topics: [
      { name: topic, partitionOffsets: [...offsets].map(([partition, offset]) => ({ partition, offset })) },
    ],
  })
}
