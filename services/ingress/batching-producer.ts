import type { IHeaders, Producer } from '../core/kafka.ts'

// Many concurrent webhooks become few Kafka requests ("group commit"): while `maxInFlight`
// batches await their acknowledgement, new messages queue up, and each time a batch settles
// the queue goes out as the next one (up to `maxBatchBytes`). Light load: a message leaves
// after `lingerMs`; heavy load: batches grow by themselves. Every caller still awaits the
// acknowledgement of its own message, and one that takes longer than `timeoutMs` is refused.
export interface OutgoingMessage {
  key: string | null
  value: Buffer
  headers?: IHeaders
}

export class PublishTimeoutError extends Error {
  override name = 'PublishTimeoutError'
}

interface Pending {
  topic: string
  message: OutgoingMessage
  resolve: () => void
  reject: (error: unknown) => void
}

export interface BatchingProducerOptions {
  lingerMs: number
  maxBatchBytes: number
  maxInFlight: number
  timeoutMs: number
}

export class BatchingProducer {
  private queue: Pending[] = []
  private timer: NodeJS.Timeout | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private readonly producer: Producer
  private readonly options: BatchingProducerOptions

  constructor(producer: Producer, options: BatchingProducerOptions) {
    this.producer = producer
    this.options = options
  }

  send(topic: string, message: OutgoingMessage): Promise<void> {
    const acknowledged = new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, message, resolve, reject })
    })
    if (this.inFlight.size < this.options.maxInFlight)
      this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs)
    return withTimeout(acknowledged, this.options.timeoutMs)
  }

  /** Sends everything queued; resolves when all of it is settled. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.flush()
      await Promise.race([...this.inFlight])
    }
  }

  private takeBatch(): Pending[] {
    let bytes = 0
    let count = 0
    while (count < this.queue.length && (count === 0 || bytes < this.options.maxBatchBytes))
      bytes += this.queue[count++]!.message.value.length
    return this.queue.splice(0, count)
  }

  private flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    // At the limit: the batch in flight that settles first sends the queue.
    if (this.queue.length === 0 || this.inFlight.size >= this.options.maxInFlight) return
    const batch = this.takeBatch()
    const byTopic = new Map<string, OutgoingMessage[]>()
    for (const { topic, message } of batch) {
      const messages = byTopic.get(topic) ?? []
      messages.push(message)
      byTopic.set(topic, messages)
    }
    const sending = this.producer
      .sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) })
      .then(
        () => {
          for (const pending of batch) pending.resolve()
        },
        (error: unknown) => {
          for (const pending of batch) pending.reject(error)
        },
      )
    this.inFlight.add(sending)
    void sending.finally(() => {
      this.inFlight.delete(sending)
      if (this.queue.length > 0) this.flush()
    })
  }
}

function withTimeout(promise: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new PublishTimeoutError(`Kafka did not acknowledge within ${timeoutMs} ms`)),
      timeoutMs,
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
