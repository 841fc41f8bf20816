import type { Admin } from '@platformatic/kafka'
import { committedOffsets, offsetsAtTime } from '../../core/kafka/kafka-offsets.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import type { ConsumedMessage } from '../../core/kafka/partition-batches.ts'
import { startTopicReader } from '../../core/kafka/topic-reader.ts'
import type { OtlpSpan, OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import type { AssemblySettings } from './assembly/assembly-settings.ts'
import {
  planRestore,
  type ReplayedMessage,
  type RestoredTraces,
  replayStartMs,
} from './assembly/restore-plan.ts'

// The Kafka side of a restore (the decisions are restore-plan.ts's): for each partition read
// afresh, the group's committed offset, the time of the last message before it, the offset at that
// time minus ASSEMBLER_RESTORE_SECONDS, and the messages from there up to the committed offset,
// read without the group (topic-reader.ts). A partition without a commit is read from its start
// by the consumer: nothing to restore.

export interface RestoreSource {
  admin: Admin
  kafka: KafkaSettings
  topic: string
  groupId: string
  decode(value: Buffer): Promise<OtlpSpans>
  settings: AssemblySettings
  isRoot(span: OtlpSpan): boolean
  signal: AbortSignal
}

/** Reads `[from, until)` of each partition named; resolves when all are read (or on abort). */
async function readRanges(
  source: RestoreSource,
  from: ReadonlyMap<number, bigint>,
  until: ReadonlyMap<number, bigint>,
): Promise<Map<number, ConsumedMessage[]>> {
  const read = new Map<number, ConsumedMessage[]>()
  if (until.size === 0) return read
  const reader = startTopicReader(source.kafka, source.topic, {
    from,
    until,
    onMessages: (partition, messages) => {
      const list = read.get(partition) ?? []
      read.set(partition, list)
      list.push(...messages)
    },
  })
  const abort = () => void reader.stop()
  source.signal.addEventListener('abort', abort, { once: true })
  try {
    await reader.done
  } finally {
    source.signal.removeEventListener('abort', abort)
  }
  if (source.signal.aborted) throw new Error('restore aborted')
  return read
}

/** The emitted traces of each partition (by number) before the group's committed offset. */
export async function readEmittedTraces(
  source: RestoreSource,
  partitions: readonly number[],
): Promise<Map<number, RestoredTraces>> {
  const restored = new Map<number, RestoredTraces>()
  const committed = await committedOffsets(source.admin, source.groupId, source.topic)
  const withCommit = new Map<number, bigint>()
  for (const partition of partitions) {
    const offset = committed.get(partition)
    if (offset !== undefined && offset > 0n) withCommit.set(partition, offset)
  }
  // The last message before each committed offset: its time anchors the replay.
  const last = await readRanges(
    source,
    new Map([...withCommit].map(([partition, offset]) => [partition, offset - 1n])),
    withCommit,
  )
  const from = new Map<number, bigint>()
  for (const [partition, messages] of last) {
    const anchor = messages.at(-1)
    if (!anchor) continue // deleted (retention): nothing left to restore
    const startMs = replayStartMs(Number(anchor.timestamp), source.settings)
    const offset = (await offsetsAtTime(source.admin, source.topic, startMs)).get(partition)
    if (offset !== undefined && offset >= 0n && offset < withCommit.get(partition)!)
      from.set(partition, offset)
  }
  const replayed = await readRanges(
    source,
    from,
    new Map([...from.keys()].map((partition) => [partition, withCommit.get(partition)!])),
  )
  for (const [partition, messages] of replayed) {
    const startMs = replayStartMs(Number(last.get(partition)!.at(-1)!.timestamp), source.settings)
    const decoded: ReplayedMessage[] = []
    for (const message of messages) {
      let spans: OtlpSpans | null = null
      try {
        if (message.value) spans = await source.decode(message.value)
      } catch {
        // Dead-lettered as undecodable when it was read: its key is remembered (restore-plan.ts).
      }
      decoded.push({
        offset: BigInt(message.offset),
        timestampMs: Number(message.timestamp),
        key: message.key?.toString() ?? null,
        message: spans,
      })
    }
    restored.set(partition, planRestore(decoded, startMs, source.settings, source.isRoot))
  }
  return restored
}
