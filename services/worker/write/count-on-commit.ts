import { newConversations } from '../observe/domain-metrics.ts'
import type { ConversationItemRow, ConversationRow, TableRows } from '../transform/table-rows.ts'

// When a conversation may be counted in the domain metrics, across retries, rewinds and
// rebalances — kept free of I/O so every ordering has a unit test. The worker pipelines: a batch is
// written while the next is fetched, and a rebalance does not wait for writes in flight, so the new
// owner of a partition reads again, from the last commit, messages the old owner is still writing.
// Both look up the conversation before writing; whoever's lookup comes second may find it stored
// by the other. Rules:
// - a message counts its conversation when ClickHouse held none of it, or only the rows this very
//   message stored (a read again: retry, rewind, new owner) — never one stored by another delivery;
// - the first decision about a message in this worker stands (a retry after a lost acknowledgement
//   finds its own rows, a rewound re-read may find a younger delivery's rows: the first lookup saw
//   what was there before the message was ever written);
// - a message below this worker's own accepted commit of its partition is settled (counted or not):
//   a batch read again after it (a seek back re-reads a partition while younger batches are still
//   in flight; kafkajs, the worker's consumer before #13, also re-read kept partitions from the
//   commit after every rebalance) decides nothing more;
// - nothing counts before its write landed AND the commit covering its offset succeeded. Kafka
//   accepts exactly one owner's commit for an offset (commits of a former owner carry its old
//   generation and are refused once the group moved on; the commit tracker forgets revoked
//   partitions), so one worker, and one only, counts each message;
// - a rebalance that takes a partition away drops its undecided counts: the new owner counts them.
// - "stored by this very message" needs ClickHouse to hold no other delivery's rows besides (the
//   lookup also reads the unmerged rows): a re-delivery of an already counted conversation, read
//   again before its commit, must not count again.
// Known gaps, both needing a platform re-delivery in flight at a rebalance or crash: (1) undercount:
// the first delivery and its re-delivery both written and neither committed when the partition
// moved — the new owner counts neither (the re-delivery finds the first one's rows); (2) double
// count: a re-delivery read again by another worker after ClickHouse merged the first delivery's
// rows away (a merge inside the seconds between the write and the move).

export interface MessageSource {
  kafka_topic: string
  kafka_partition: number
  kafka_offset: number
}

/** A conversation to count, with its turns (for the latency histograms). */
export interface CountedConversation {
  conversation: ConversationRow
  items: ConversationItemRow[]
}

interface Decision {
  counted: CountedConversation | undefined
  landed: boolean
}

const partitionKey = (topic: string, partition: number) => `${topic}/${partition}`
/** The same Kafka message (the same delivery read again), whatever row object carries it. */
export const sameMessage = (a: MessageSource, b: MessageSource) =>
  a.kafka_topic === b.kafka_topic &&
  a.kafka_partition === b.kafka_partition &&
  a.kafka_offset === b.kafka_offset

/**
 * The sessions a write may NOT count: stored (as the lookup just before the write saw them) by a
 * message other than the one now writing that session's newest delivery.
 */
export function storedByOtherMessages(
  written: readonly (MessageSource & { session_id: string })[],
  stored: readonly (MessageSource & { session_id: string })[],
): Set<string> {
  const writer = new Map(written.map((row) => [row.session_id, row]))
  const others = new Set<string>()
  for (const row of stored) {
    const own = writer.get(row.session_id)
    if (!own || !sameMessage(own, row)) others.add(row.session_id)
  }
  return others
}

/**
 * What each message of a write counts, given the plan's rows and the lookup before the write: its
 * conversation when that message's delivery is the one written and no other message stored it.
 * Decided per message, not per row: one write can carry the same message twice (a kept partition
 * read again after a rebalance while its older batch is still being written).
 */
export function messageCounts(
  incoming: readonly ConversationRow[],
  planned: Pick<TableRows, 'conversations' | 'conversation_items'>,
  stored: readonly (MessageSource & { session_id: string })[],
): Array<{ message: ConversationRow; counted: CountedConversation | undefined }> {
  // The written (live) delivery of each conversation; tombstones are not conversations.
  const written = planned.conversations.filter((row) => row.is_deleted !== 1)
  const fresh = newConversations(
    {
      conversations: written,
      conversation_items: planned.conversation_items.filter((row) => row.is_deleted !== 1),
    },
    storedByOtherMessages(written, stored),
  )
  const bySession = new Map<string, CountedConversation>(
    fresh.conversations.map((conversation) => [conversation.session_id, { conversation, items: [] }]),
  )
  for (const item of fresh.items) bySession.get(item.session_id)?.items.push(item)
  return incoming.map((message) => {
    const counted = bySession.get(message.session_id)
    return { message, counted: counted && sameMessage(counted.conversation, message) ? counted : undefined }
  })
}

export class CountOnCommit {
  /** topic/partition -> offset -> the decision about that message. */
  private readonly partitions = new Map<string, Map<string, Decision>>()
  /** topic/partition -> the highest offset this worker committed: every message below it is settled. */
  private readonly settled = new Map<string, bigint>()

  private decisions(source: MessageSource): Map<string, Decision> {
    const key = partitionKey(source.kafka_topic, source.kafka_partition)
    let decisions = this.partitions.get(key)
    if (!decisions) {
      decisions = new Map()
      this.partitions.set(key, decisions)
    }
    return decisions
  }

  /** The lookup before a write decided about this message (undefined: not to count); the first decision stands. */
  decided(source: MessageSource, counted: CountedConversation | undefined): void {
    const settled = this.settled.get(partitionKey(source.kafka_topic, source.kafka_partition))
    if (settled !== undefined && BigInt(source.kafka_offset) < settled) return
    const decisions = this.decisions(source)
    const offset = String(source.kafka_offset)
    if (!decisions.has(offset)) decisions.set(offset, { counted, landed: false })
  }

  /** ClickHouse acknowledged the write that carried this message. */
  landed(source: MessageSource): void {
    const decision = this.decisions(source).get(String(source.kafka_offset))
    if (decision) decision.landed = true
  }

  /** The partition's offset `next` was committed: what its messages before it count, each once. */
  committed(topic: string, partition: number, next: string): CountedConversation[] {
    const key = partitionKey(topic, partition)
    const limit = BigInt(next)
    if ((this.settled.get(key) ?? -1n) < limit) this.settled.set(key, limit)
    const decisions = this.partitions.get(key)
    if (!decisions) return []
    const counted: CountedConversation[] = []
    for (const [offset, decision] of decisions) {
      if (BigInt(offset) >= limit) continue
      if (decision.landed && decision.counted) counted.push(decision.counted)
      decisions.delete(offset)
    }
    return counted
  }

  /**
   * A rebalance left this worker these partitions (topic/partition): the others' decisions go. Those
   * of a partition assigned again after a break stay: a decision belongs to the message, and the
   * commit that covers it (one Kafka accepted just as the group moved, or the new reading's) counts
   * it once.
   */
  assigned(kept: ReadonlySet<string>): void {
    for (const key of [...this.partitions.keys()]) if (!kept.has(key)) this.partitions.delete(key)
    for (const key of [...this.settled.keys()]) if (!kept.has(key)) this.settled.delete(key)
  }

  /**
   * The partition is read afresh from `offset`, its committed offset, after a break in this
   * worker's ownership (a generation it missed): the messages before it were committed, and counted,
   * by whoever owned it meanwhile — or by this worker's own commit, already counted.
   */
  readingFrom(topic: string, partition: number, offset: string): void {
    const decisions = this.partitions.get(partitionKey(topic, partition))
    if (!decisions) return
    const from = BigInt(offset)
    for (const decided of [...decisions.keys()]) if (BigInt(decided) < from) decisions.delete(decided)
  }

  /** Messages decided and not yet committed (or dropped). */
  pending(): number {
    let total = 0
    for (const decisions of this.partitions.values()) total += decisions.size
    return total
  }
}
