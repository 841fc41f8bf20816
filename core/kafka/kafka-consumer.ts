import { Consumer, type ConsumerGroupJoinPayload, ListOffsetTimestamps } from '@platformatic/kafka'
import type { Logger } from '../runtime/logger.ts'
import { afterJoin, noOwnership, type Ownership, ownedSince, sameGeneration } from './group-ownership.ts'
import { type GuardedCommit, guardedCommit } from './guarded-commit.ts'
import { describeKafkaError, hasBrokerError } from './kafka-errors.ts'
import { type KafkaSettings, platformaticClientOptions } from './kafka-settings.ts'
import { type PartitionBatch, partitionBatch } from './partition-batches.ts'
import {
  type FetchLimits,
  type FetchResponse,
  fetchFromLeader,
  partitionsByLeader,
} from './partition-fetch.ts'

// The worker's Kafka consumer on @platformatic/kafka (measured 1.88× kafkajs's fetch + decode rate,
// bench/results/kafka-client.md). The library's message stream hands over one message at a time
// and has no seek; the worker needs per-partition batches, a seek back after a failed batch,
// commits only when it says so, and a fetch that waits while it is busy. So this module runs its
// own fetch loop on the library's consumer, which keeps the group membership (join, heartbeats
// on a timer of their own, rejoin after a rebalance):
// - each fetch's partitions become batches (partition-batches.ts), handed to `eachBatch` together;
//   one more fetch goes out meanwhile, and its batches wait until every one of them returned (the
//   worker's back-pressure: at most two fetches in hand);
// - a (re)join reads every partition it gained (or regained after a break) from its committed
//   offset (the earliest offset when the group has none); a partition kept goes on where it was;
//   fetches sent before the join are dropped; the library reports one join once per caller that
//   asked for it, and a join reported again changes nothing;
// - seek moves a partition's fetch position; a fetch sent before the seek is dropped for it;
// - a commit is written only under the generation whose assignment this consumer holds, and the
//   library's retry after a rejoin carries only partitions kept (guarded-commit.ts); a commit that
//   carried nothing is reported as failed (the partition is read again from its last commit).

export interface PartitionConsumerOptions extends FetchLimits {
  settings: KafkaSettings
  groupId: string
  topic: string
  sessionTimeoutMs: number
  heartbeatIntervalMs: number
  /** The wait before the n-th retry of a failed fetch or join. */
  retryDelayMs: (attempt: number) => number
  logger: Logger
}

export interface PartitionConsumer {
  /** Joins the group and starts fetching; resolves once joined. */
  run(eachBatch: (batch: PartitionBatch) => Promise<void>): Promise<void>
  /** Called on every (re)join (a join reported again excepted) with the partitions it leaves this consumer. */
  onAssigned(listener: (change: AssignmentChange) => void): void
  /** Stops fetching (a fetch already sent still hands its batches over). */
  pause(): void
  resume(): void
  /**
   * Whether this consumer has owned the batch's partition without a break since it fetched the
   * batch: a batch of a partition that moved away (even if it came back) is its new owner's to read.
   */
  owns(batch: PartitionBatch): boolean
  /** Reads the partition again from `offset` (the next fetch of it starts there). */
  seek(topic: string, partition: number, offset: string): void
  /** Commits `offset` (the next to read); fails when Kafka refused it or the partition moved away. */
  commit(topic: string, partition: number, offset: string): Promise<void>
  /** Stops fetching once the batches in hand returned, and leaves the group. */
  disconnect(): Promise<void>
}

/** What a (re)join left this consumer, as topic/partition keys. */
export interface AssignmentChange {
  /** Every partition the join assigned to this consumer. */
  assigned: ReadonlySet<string>
  /**
   * Those owned without a break since before the join. Every other one moved away or is read again
   * from its committed offset, so its batches of before the join are void, even when it is assigned.
   */
  kept: ReadonlySet<string>
}

const partitionKey = (topic: string, partition: number) => `${topic}/${partition}`

export function createPartitionConsumer(options: PartitionConsumerOptions): PartitionConsumer {
  const { topic, logger } = options
  const consumer = new Consumer({
    ...platformaticClientOptions(options.settings),
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs,
    rebalanceTimeout: Math.max(60_000, options.sessionTimeoutMs),
    heartbeatInterval: options.heartbeatIntervalMs,
    autocommit: false,
  })
  const assignedListeners: Array<(change: AssignmentChange) => void> = []
  /** The partitions of `topic` this consumer owns, and the join that gave them. */
  let assigned: number[] = []
  let generation = 0
  /** Since which join each assigned partition has been this consumer's without a break. */
  let ownership: Ownership = noOwnership
  /** The join each batch was fetched under. */
  const fetchedUnder = new WeakMap<PartitionBatch, number>()
  /** Where the next fetch of each partition starts, valid for `positionsGeneration`. */
  let positions = new Map<string, bigint>()
  let positionsGeneration = -1
  const inFlightCommits = new Set<GuardedCommit>()
  let paused = false
  let stopping = false
  let wake: (() => void) | undefined
  let loopDone: Promise<void> = Promise.resolve()

  const wakeUp = () => {
    const resolve = wake
    wake = undefined
    resolve?.()
  }
  /** Waits for pause/resume, a join or a stop, or `ms` at most. */
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(wakeUp, ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => {
    const owned = new Map((payload.assignments ?? []).map((entry) => [entry.topic, entry.partitions]))
    const keys = [...owned].flatMap(([name, partitions]) =>
      partitions.map((partition) => partitionKey(name, partition)),
    )
    const join = { memberId: payload.memberId, generationId: payload.generationId, assigned: new Set(keys) }
    // The library reports one join once per caller that asked for it: the same join changes nothing.
    if (sameGeneration(ownership, join)) return
    generation++
    ownership = afterJoin(ownership, join, generation)
    const kept = (key: string) => ownedSince(ownership, key, generation - 1)
    // A commit the library is about to retry in the new generation: only for a partition kept.
    for (const pending of inFlightCommits)
      pending.withdraw((entry) => kept(partitionKey(entry.topic, entry.partition)))
    // A kept partition goes on from where it was; a gained one starts at its committed offset.
    positions = new Map([...positions].filter(([key]) => kept(key)))
    assigned = [...(owned.get(topic) ?? [])].sort((a, b) => a - b)
    logger.info({ topic, partitions: assigned, generationId: payload.generationId }, 'Kafka group joined')
    const change = { assigned: join.assigned, kept: new Set(keys.filter(kept)) }
    for (const listener of assignedListeners) listener(change)
    wakeUp()
  })
  // A rejoin that failed (e.g. the broker away): membership is lost until a join succeeds.
  consumer.on('error', (error: Error) => {
    if (stopping) return
    logger.error(
      { error: describeKafkaError(error) },
      'Kafka consumer lost its group membership: joining again',
    )
    void join().catch(() => {})
  })

  /** Joins the group, retrying until it succeeds or the consumer stops; past `deadline` the last error is thrown. */
  async function join(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    for (let attempt = 1; !stopping; attempt++) {
      try {
        await consumer.joinGroup({})
        return
      } catch (error) {
        if (Date.now() > deadline) throw error
        const delayMs = options.retryDelayMs(attempt)
        logger.warn(
          { attempt, retryInMs: delayMs, error: describeKafkaError(error) },
          'Kafka group join failed',
        )
        await new Promise((resolve) => setTimeout(resolve, delayMs))
      }
    }
  }

  /** The committed offset of each partition gained (the earliest where none is committed). */
  async function loadPositions(forGeneration: number): Promise<void> {
    const loaded = new Map<string, bigint>()
    const partitions = assigned.filter((partition) => !positions.has(partitionKey(topic, partition)))
    if (partitions.length > 0) {
      const committed =
        (await consumer.listCommittedOffsets({ topics: [{ topic, partitions }] })).get(topic) ?? []
      const none = partitions.filter((partition) => (committed[partition] ?? -1n) < 0n)
      const earliest =
        none.length > 0
          ? ((
              await consumer.listOffsets({
                topics: [topic],
                partitions: { [topic]: none },
                timestamp: ListOffsetTimestamps.EARLIEST,
              })
            ).get(topic) ?? [])
          : []
      for (const partition of partitions) {
        const offset = (committed[partition] ?? -1n) >= 0n ? committed[partition]! : earliest[partition]
        if (offset === undefined || offset < 0n)
          throw new Error(`no offset to start ${topic}/${partition} at`)
        loaded.set(partitionKey(topic, partition), offset)
      }
    }
    if (forGeneration !== generation) return // another join meanwhile: its own load follows
    for (const [key, offset] of loaded) positions.set(key, offset)
    positionsGeneration = forGeneration
  }

  /** A fetch answered OFFSET_OUT_OF_RANGE (the log was truncated): those partitions restart at its start. */
  function outOfRange(error: unknown, requested: Map<number, bigint>): boolean {
    if (!hasBrokerError(error, 'OFFSET_OUT_OF_RANGE')) return false
    const response = (error as { response?: FetchResponse }).response
    let moved = false
    for (const topicResponse of response?.responses ?? [])
      for (const answer of topicResponse.partitions) {
        const from = requested.get(answer.partitionIndex)
        if (answer.errorCode === 0 || from === undefined || answer.logStartOffset < 0n) continue
        const key = partitionKey(topic, answer.partitionIndex)
        if (positions.get(key) !== from) continue
        logger.warn(
          { topic, partition: answer.partitionIndex, from: String(from), to: String(answer.logStartOffset) },
          'offset out of range: reading the partition from its first offset',
        )
        positions.set(key, answer.logStartOffset)
        moved = true
      }
    return moved
  }

  /** One fetch of every assigned partition, one request per leader; the batches it returned. */
  async function fetchOnce(forGeneration: number, forceMetadata: boolean): Promise<PartitionBatch[]> {
    const metadata = await consumer.metadata({ topics: [topic], forceUpdate: forceMetadata })
    const topicMetadata = metadata.topics.get(topic)
    if (!topicMetadata) throw new Error(`no metadata for topic ${topic}`)
    const positionsOfAssigned = assigned.flatMap((partition) => {
      const offset = positions.get(partitionKey(topic, partition))
      return offset === undefined ? [] : [[partition, offset] as const]
    })
    const batches: PartitionBatch[] = []
    await Promise.all(
      [...partitionsByLeader(topicMetadata, positionsOfAssigned)].map(async ([node, requested]) => {
        let response: FetchResponse
        try {
          response = await fetchFromLeader(consumer, node, topicMetadata.id, requested, options)
        } catch (error) {
          if (forGeneration === generation && outOfRange(error, requested)) return
          throw error
        }
        if (forGeneration !== generation) return // a join meanwhile: not applied, fetched again
        for (const topicResponse of response.responses) {
          if (topicResponse.topicId !== topicMetadata.id) continue
          for (const answer of topicResponse.partitions) {
            const from = requested.get(answer.partitionIndex)
            const key = partitionKey(topic, answer.partitionIndex)
            // Not asked for (a fetch session's leftover), or sought elsewhere since: not this fetch's to hand over.
            if (from === undefined || positions.get(key) !== from) continue
            const fetched = partitionBatch(
              topic,
              answer.partitionIndex,
              from,
              answer.highWatermark,
              answer.records,
            )
            if (fetched.nextOffset !== undefined) positions.set(key, fetched.nextOffset)
            if (fetched.batch) {
              fetchedUnder.set(fetched.batch, forGeneration)
              batches.push(fetched.batch)
            }
          }
        }
      }),
    )
    return batches
  }

  async function loop(eachBatch: (batch: PartitionBatch) => Promise<void>): Promise<void> {
    let failures = 0
    // The next fetch, sent while the batches of the last one are handled. Its batches are always
    // handed over once it answered (the partitions' positions are already past them); the batch
    // processor leaves out those of a partition moved away meanwhile (owns()).
    let prefetched: Promise<PartitionBatch[]> | undefined
    while (!stopping) {
      const current = generation
      try {
        if (!prefetched) {
          if (paused) {
            await nap(1_000)
            continue
          }
          if (positionsGeneration !== current) {
            await loadPositions(current)
            continue
          }
          if (assigned.length === 0) {
            await nap(options.maxWaitMs)
            continue
          }
        }
        const batches = await (prefetched ?? fetchOnce(current, failures > 0))
        prefetched = undefined
        failures = 0
        if (!paused && !stopping && positionsGeneration === generation && assigned.length > 0) {
          prefetched = fetchOnce(generation, false)
          prefetched.catch(() => {}) // awaited on the next turn
        }
        await Promise.all(
          batches.map((batch) =>
            eachBatch(batch).catch((error) => {
              // A bug, not a dependency (those are retried inside): log it and read the batch again.
              logger.error(
                {
                  topic,
                  partition: batch.partition,
                  offset: batch.firstOffset,
                  error: (error as Error).message,
                },
                'batch handler failed: its partition is read again from this offset',
              )
              seek(batch.topic, batch.partition, batch.firstOffset)
            }),
          ),
        )
      } catch (error) {
        prefetched = undefined
        if (stopping) break
        failures++
        const delayMs = options.retryDelayMs(failures)
        logger.warn(
          { attempt: failures, retryInMs: delayMs, error: describeKafkaError(error) },
          'Kafka fetch failed: retrying',
        )
        await nap(delayMs)
      }
    }
  }

  function seek(seekTopic: string, partition: number, offset: string): void {
    if (seekTopic !== topic || !assigned.includes(partition)) return // not ours (any more)
    positions.set(partitionKey(seekTopic, partition), BigInt(offset))
  }

  return {
    async run(eachBatch) {
      consumer.topics.track(topic)
      // A broker just started (or a topic just created) can refuse a join for a while: wait up to
      // 30 s, then fail the start with the broker's error.
      await join(Date.now() + 30_000)
      loopDone = loop(eachBatch)
    },
    onAssigned(listener) {
      assignedListeners.push(listener)
    },
    pause() {
      paused = true
    },
    resume() {
      paused = false
      wakeUp()
    },
    owns(batch) {
      const fetched = fetchedUnder.get(batch)
      return (
        fetched !== undefined && ownedSince(ownership, partitionKey(batch.topic, batch.partition), fetched)
      )
    },
    seek,
    async commit(commitTopic, partition, offset) {
      if (!ownership.since.has(partitionKey(commitTopic, partition)))
        throw new Error(`${commitTopic}/${partition} is not assigned to this consumer: not committed`)
      // Written only under the generation whose assignment this consumer holds (guarded-commit.ts).
      const pending = guardedCommit(
        [{ topic: commitTopic, partition, offset: BigInt(offset), leaderEpoch: -1 }],
        () => sameGeneration(ownership, consumer),
      )
      inFlightCommits.add(pending)
      try {
        await consumer.commit(pending.request)
      } finally {
        inFlightCommits.delete(pending)
      }
      if (!pending.carried())
        throw new Error(
          `${commitTopic}/${partition}: a rebalance came before its commit was written: not committed`,
        )
    },
    async disconnect() {
      stopping = true
      wakeUp()
      await loopDone
      try {
        await consumer.close()
      } catch (error) {
        logger.warn({ error: (error as Error).message }, 'could not leave the Kafka group cleanly')
        await consumer.close(true).catch(() => {})
      }
    },
  }
}
