import { Consumer, ListOffsetTimestamps } from '@platformatic/kafka'
import { type KafkaSettings, platformaticClientOptions } from './kafka-settings.ts'
import { type ConsumedMessage, partitionBatch } from './partition-batches.ts'
import { type FetchLimits, fetchFromLeader, partitionsByLeader } from './partition-fetch.ts'

// Reads one topic from given offsets without a consumer group: `forget` searches the DLQ and the
// quarantine topic with it, and the tests read what the services wrote. Joining no group, it takes
// no partition from anyone, commits nothing and leaves no group behind. Messages come in the
// worker's shape (partition-batches.ts: offsets as strings, every header value kept), in offset
// order per partition. A failed fetch (a broker away, a leader moving, a topic not created yet) is
// tried again until the reading stops; a partition whose start was deleted under it (retention)
// goes on from its new first offset.

export interface TopicReaderOptions {
  /** Where partitions start; one not named starts at its first offset. */
  from?: ReadonlyMap<number, bigint>
  /**
   * Where partitions end (exclusive): only these are read, and the reading is done once each one
   * reached its end. Without it every partition is read until stop().
   */
  until?: ReadonlyMap<number, bigint>
  /** One partition's next messages. */
  onMessages(partition: number, messages: ConsumedMessage[]): void
}

export interface TopicReader {
  /** Resolves once every partition reached its end (`until`), or once stopped. */
  done: Promise<void>
  /** The error of the last fetch that failed (undefined when none has): for a caller that gives up. */
  lastError(): unknown
  stop(): Promise<void>
}

// A test or a search waits on what it reads: a fetch returns as soon as there is anything.
const limits: FetchLimits = {
  maxBytesPerPartition: 4 * 1024 * 1024,
  maxBytes: 16 * 1024 * 1024,
  minBytes: 1,
  maxWaitMs: 500,
}

export function startTopicReader(
  settings: KafkaSettings,
  topic: string,
  options: TopicReaderOptions,
): TopicReader {
  // The library wants a group id; this consumer never joins it.
  const consumer = new Consumer({
    ...platformaticClientOptions(settings),
    groupId: `${settings.clientId}-reader`,
  })
  const { from, until } = options
  /** Where the next fetch of each partition still to read starts. */
  let positions: Map<number, bigint> | undefined
  let stopping = false
  let lastError: unknown
  let wake: (() => void) | undefined

  const firstOffsets = async (partitions: number[]): Promise<bigint[]> =>
    (
      await consumer.listOffsets({
        topics: [topic],
        partitions: { [topic]: partitions },
        timestamp: ListOffsetTimestamps.EARLIEST,
      })
    ).get(topic) ?? []

  async function startPositions(): Promise<Map<number, bigint>> {
    const metadata = (await consumer.metadata({ topics: [topic], forceUpdate: true })).topics.get(topic)
    if (!metadata) throw new Error(`no metadata for topic ${topic}`)
    const partitions = until
      ? [...until.keys()]
      : Array.from({ length: metadata.partitionsCount }, (_, partition) => partition)
    const unnamed = partitions.filter((partition) => from?.get(partition) === undefined)
    const first = unnamed.length > 0 ? await firstOffsets(unnamed) : []
    const start = new Map<number, bigint>()
    for (const partition of partitions) {
      const offset = from?.get(partition) ?? first[partition] ?? 0n
      if (until === undefined || offset < until.get(partition)!) start.set(partition, offset)
    }
    return start
  }

  /** After a failed fetch: a partition behind its first offset (deleted under it) moves up to it. */
  async function skipDeleted(at: Map<number, bigint>): Promise<void> {
    const first = await firstOffsets([...at.keys()])
    for (const [partition, offset] of at) {
      const firstHeld = first[partition]
      if (firstHeld !== undefined && firstHeld > offset) at.set(partition, firstHeld)
    }
  }

  async function fetchOnce(at: Map<number, bigint>, forceMetadata: boolean): Promise<void> {
    const metadata = (await consumer.metadata({ topics: [topic], forceUpdate: forceMetadata })).topics.get(
      topic,
    )
    if (!metadata) throw new Error(`no metadata for topic ${topic}`)
    const byLeader = partitionsByLeader(metadata, at)
    // Retried after a pause with fresh metadata, like a failed fetch (not a busy loop meanwhile).
    if (byLeader.size === 0) throw new Error(`no partition of ${topic} to read has a leader`)
    await Promise.all(
      [...byLeader].map(async ([node, requested]) => {
        const response = await fetchFromLeader(consumer, node, metadata.id, requested, limits)
        for (const topicResponse of response.responses) {
          if (topicResponse.topicId !== metadata.id) continue
          for (const answer of topicResponse.partitions) {
            const partition = answer.partitionIndex
            const requestedAt = requested.get(partition)
            // Not asked for in this request (a fetch session's leftover): not this fetch's to hand over.
            if (requestedAt === undefined || at.get(partition) !== requestedAt) continue
            const fetched = partitionBatch(
              topic,
              partition,
              requestedAt,
              answer.highWatermark,
              answer.records,
            )
            const end = until?.get(partition)
            const messages = (fetched.batch?.messages ?? []).filter(
              (message) => end === undefined || BigInt(message.offset) < end,
            )
            if (messages.length > 0) options.onMessages(partition, messages)
            const next = fetched.nextOffset ?? requestedAt
            if (end !== undefined && next >= end) at.delete(partition)
            else at.set(partition, next)
          }
        }
      }),
    )
  }

  async function read(): Promise<void> {
    for (let failures = 0; !stopping; ) {
      try {
        positions ??= await startPositions()
        if (positions.size === 0) return
        await fetchOnce(positions, failures > 0)
        failures = 0
      } catch (error) {
        if (stopping) return
        lastError = error
        failures++
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(200 * failures, 2_000))
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        if (positions && !stopping) await skipDeleted(positions).catch(() => {})
      }
    }
  }

  const done = read().finally(() => consumer.close(true).catch(() => {}))
  return {
    done,
    lastError: () => lastError,
    async stop() {
      stopping = true
      wake?.()
      await done
    },
  }
}
