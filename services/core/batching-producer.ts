import type { IHeaders, Producer } from './kafka.ts'

// Many concurrent webhooks become one Kafka request: messages wait up to `lingerMs` (or until
// `maxBatchBytes`) and go out together with acks=all, while every caller still awaits the
// acknowledgement of its own message. A publish that takes longer than `timeoutMs` is refused.
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
  timeoutMs: number
}

export class BatchingProducer {
  private queue: Pending[] = []
  private queuedBytes = 0
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
    this.queuedBytes += message.value.length
    if (this.queuedBytes >= this.options.maxBatchBytes) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs)
    return withTimeout(acknowledged, this.options.timeoutMs)
  }

  /** Sends what is queued now; resolves when every batch sent so far is settled. */
  async drain(): Promise<void> {
    this.flush()
    await Promise.allSettled([...this.inFlight])
  }

  private flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.queue.length === 0) return
    const batch = this.queue
    this.queue = []
    this.queuedBytes = 0
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
    void sending.finally(() => this.inFlight.delete(sending))
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
