import { headersBytes, type MessageHeaders } from '../../core/kafka/message-headers.ts'
import {
  BatchRefusedBySizeError,
  MessageTooLargeError,
  PublishTimeoutError,
  QueueFullError,
} from './ingress-errors.ts'

// Many concurrent webhooks become few Kafka requests ("group commit"): while `maxInFlight`
// batches await their acknowledgement, new messages queue up, and each time a batch settles
// the queue goes out as the next one. Light load: a message leaves after `lingerMs`; heavy
// load: batches grow by themselves. Every caller awaits the verdict on its own message.
//
// What keeps one caller's trouble from becoming another's, and the process bounded:
// - A message larger than its topic's limit is refused alone, before Kafka sees it; a batch
//   never holds more than the smallest topic limit, so Kafka never refuses a batch of
//   neighbours for one large message.
// - The queue holds at most `maxQueuedBytes`; beyond that a message is refused at once.
// - A message still queued after `timeoutMs` is taken out of the queue and refused: what was
//   refused is never sent later. Once handed to Kafka, its caller waits for Kafka's verdict
//   (bounded by the client's request timeout and retries). A broker that dies after writing and
//   before answering still leaves a 503'd message in Kafka: the retry is stored once (dedup).
export interface OutgoingMessage {
  key: string | null
  value: Buffer
  headers?: MessageHeaders
}

export interface TopicMessages {
  topic: string
  messages: OutgoingMessage[]
}

/** Sends one batch and resolves once Kafka acknowledged all of it. */
export type SendBatch = (topicMessages: TopicMessages[]) => Promise<void>

export interface BatchingProducerOptions {
  lingerMs: number
  /** A batch holds at most this many bytes (and at most the smallest topic limit). */
  maxBatchBytes: number
  maxInFlight: number
  /** Longest a message waits in the queue before it is refused. */
  timeoutMs: number
  /** Bytes the queue holds at most (a message is always taken into an empty queue). */
  maxQueuedBytes: number
  /** Largest message (bytes as messageBytes counts them) a topic takes, when not set per topic. */
  defaultMessageLimit: number
  /** Whether an error is Kafka refusing a message or batch as too large. */
  isSizeRefusal: (error: unknown) => boolean
}

interface Pending {
  topic: string
  message: OutgoingMessage
  bytes: number
  timer: NodeJS.Timeout | undefined
  resolve: () => void
  reject: (error: unknown) => void
}

// Kafka counts a record batch: a header once, per record a few varints. 128 bytes per message
// covers both, so a sum of messageBytes never falls below what Kafka measures.
const recordOverheadBytes = 128

/** The bytes a message takes in a Kafka record batch, rounded up. */
export function messageBytes(message: OutgoingMessage): number {
  let bytes = message.value.length + recordOverheadBytes
  if (message.key !== null) bytes += Buffer.byteLength(message.key)
  const headers = message.headers
  if (headers === undefined) return bytes // a conversation: no headers, nothing more to add up
  return bytes + headersBytes(headers)
}

export class BatchingProducer {
  // A Set is a FIFO with O(1) removal: a message that times out leaves the queue at once.
  private readonly queue = new Set<Pending>()
  private queued = 0
  private timer: NodeJS.Timeout | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private readonly messageLimits = new Map<string, number>()
  private readonly sendBatch: SendBatch
  private readonly options: BatchingProducerOptions

  constructor(sendBatch: SendBatch, options: BatchingProducerOptions) {
    this.sendBatch = sendBatch
    this.options = options
  }

  /** Bytes waiting in the queue (not yet handed to Kafka). */
  get queuedBytes(): number {
    return this.queued
  }

  get queuedMessages(): number {
    return this.queue.size
  }

  /** The largest message a topic takes, as read from Kafka. */
  setMessageLimit(topic: string, bytes: number): void {
    this.messageLimits.set(topic, bytes)
  }

  messageLimit(topic: string): number {
    return this.messageLimits.get(topic) ?? this.options.defaultMessageLimit
  }

  send(topic: string, message: OutgoingMessage): Promise<void> {
    const bytes = messageBytes(message)
    const limit = this.messageLimit(topic)
    if (bytes > limit)
      return Promise.reject(
        new MessageTooLargeError(`the message takes ${bytes} bytes; topic ${topic} takes at most ${limit}`),
      )
    if (this.queue.size > 0 && this.queued + bytes > this.options.maxQueuedBytes)
      return Promise.reject(
        new QueueFullError(`the publish queue is full (${this.queued} bytes waiting for Kafka)`),
      )
    return new Promise<void>((resolve, reject) => {
      const pending: Pending = { topic, message, bytes, timer: undefined, resolve, reject }
      pending.timer = setTimeout(() => this.expire(pending), this.options.timeoutMs)
      this.queue.add(pending)
      this.queued += bytes
      if (this.inFlight.size < this.options.maxInFlight)
        this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs)
    })
  }

  /** Sends everything queued; resolves when all of it is settled. */
  async drain(): Promise<void> {
    while (this.queue.size > 0 || this.inFlight.size > 0) {
      this.flush()
      if (this.inFlight.size > 0) await Promise.race([...this.inFlight])
    }
  }

  private expire(pending: Pending): void {
    if (!this.queue.delete(pending)) return // already handed to Kafka: its verdict answers
    this.queued -= pending.bytes
    pending.reject(
      new PublishTimeoutError(`Kafka did not take the message within ${this.options.timeoutMs} ms`),
    )
  }

  private batchLimit(): number {
    return Math.min(
      this.options.maxBatchBytes,
      this.options.defaultMessageLimit,
      ...this.messageLimits.values(),
    )
  }

  /** The oldest messages, in order, up to the batch limit; a message above the limit goes alone. */
  private takeBatch(): Pending[] {
    const limit = this.batchLimit()
    const batch: Pending[] = []
    let bytes = 0
    for (const pending of this.queue) {
      if (batch.length > 0 && bytes + pending.bytes > limit) break
      batch.push(pending)
      bytes += pending.bytes
    }
    for (const pending of batch) {
      this.queue.delete(pending)
      clearTimeout(pending.timer)
    }
    this.queued -= bytes
    return batch
  }

  private flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    // At the limit: the batch in flight that settles first sends the queue.
    while (this.queue.size > 0 && this.inFlight.size < this.options.maxInFlight) {
      const sending = this.dispatch(this.takeBatch())
      this.inFlight.add(sending)
      void sending.finally(() => {
        this.inFlight.delete(sending)
        if (this.queue.size > 0) this.flush()
      })
    }
  }

  private dispatch(batch: Pending[]): Promise<void> {
    const byTopic = new Map<string, OutgoingMessage[]>()
    for (const { topic, message } of batch) {
      const messages = byTopic.get(topic) ?? []
      messages.push(message)
      byTopic.set(topic, messages)
    }
    return this.sendBatch([...byTopic].map(([topic, messages]) => ({ topic, messages }))).then(
      () => {
        for (const pending of batch) pending.resolve()
      },
      (error: unknown) => {
        // Several messages refused by size means a topic's limit is smaller than we read; none
        // of them is known to be the large one, so each caller retries (503) rather than
        // being told its own event is too large. Not re-sent here: Kafka may have written the
        // other partitions of the request.
        const refusal =
          batch.length > 1 && this.options.isSizeRefusal(error)
            ? new BatchRefusedBySizeError('Kafka refused the batch by size; retry')
            : error
        for (const pending of batch) pending.reject(refusal)
      },
    )
  }
}
