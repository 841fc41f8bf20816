import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  BatchingProducer,
  type BatchingProducerOptions,
  messageBytes,
  type OutgoingMessage,
  type TopicMessages,
} from './batching-producer.ts'
import {
  BatchRefusedBySizeError,
  MessageTooLargeError,
  PublishTimeoutError,
  QueueFullError,
} from './ingress-errors.ts'

// The queue's decisions, with Kafka's side played by a batch sender the test settles by hand.
const sizeRefusal = Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE' })

function kafkaStandIn() {
  const batches: Array<{ topicMessages: TopicMessages[]; settle: (error?: unknown) => void }> = []
  const send = (topicMessages: TopicMessages[]) =>
    new Promise<void>((resolve, reject) =>
      batches.push({ topicMessages, settle: (error) => (error ? reject(error) : resolve()) }),
    )
  const keysOf = (index: number) =>
    batches[index]!.topicMessages.flatMap(({ messages }) => messages.map((message) => message.key))
  const allSentKeys = () => batches.flatMap((_, index) => keysOf(index))
  return { batches, send, keysOf, allSentKeys }
}

const message = (key: string, bytes = 100): OutgoingMessage => ({ key, value: Buffer.alloc(bytes) })
const size = (key: string, bytes = 100) => messageBytes(message(key, bytes))

function producer(
  send: (topicMessages: TopicMessages[]) => Promise<void>,
  options: Partial<BatchingProducerOptions> = {},
) {
  return new BatchingProducer(send, {
    lingerMs: 1,
    maxBatchBytes: 1_000_000,
    maxInFlight: 1,
    timeoutMs: 1_000,
    maxQueuedBytes: 1_000_000,
    defaultMessageLimit: 1_000_000,
    isSizeRefusal: (error) => (error as { type?: string }).type === 'MESSAGE_TOO_LARGE',
    ...options,
  })
}

/** What each send promise ended as, once settled. */
function outcome(promise: Promise<void>) {
  const state: { value?: 'ok' | Error } = {}
  promise.then(
    () => (state.value = 'ok'),
    (error: Error) => (state.value = error),
  )
  return state
}

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('BatchingProducer', () => {
  it('sends concurrent messages as one batch and answers each caller', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send)
    const answers = ['a', 'b', 'c'].map((key) => outcome(queue.send('t', message(key))))
    await vi.advanceTimersByTimeAsync(1)
    expect(kafka.batches.map((_, index) => kafka.keysOf(index))).toEqual([['a', 'b', 'c']])
    kafka.batches[0]!.settle()
    await vi.advanceTimersByTimeAsync(0)
    expect(answers.map((answer) => answer.value)).toEqual(['ok', 'ok', 'ok'])
  })

  it('refuses a message larger than its topic takes on its own, before Kafka; its neighbours go', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send)
    queue.setMessageLimit('t', size('big', 5_000) - 1)
    const small1 = outcome(queue.send('t', message('s1')))
    const big = outcome(queue.send('t', message('big', 5_000)))
    const small2 = outcome(queue.send('t', message('s2')))
    await vi.advanceTimersByTimeAsync(1)
    expect(big.value).toBeInstanceOf(MessageTooLargeError)
    expect(kafka.allSentKeys()).toEqual(['s1', 's2'])
    kafka.batches[0]!.settle()
    await vi.advanceTimersByTimeAsync(0)
    expect([small1.value, small2.value]).toEqual(['ok', 'ok'])
  })

  it('never makes a batch larger than the smallest topic limit; a message above it goes alone', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send, { maxInFlight: 5 })
    queue.setMessageLimit('t', size('x', 1_000) * 2)
    queue.setMessageLimit('q', size('x', 1_000) * 3)
    for (const key of ['a', 'b', 'c']) void queue.send('t', message(key, 1_000))
    void queue.send('q', message('d', 2_500))
    void queue.send('t', message('e', 1_000))
    await vi.advanceTimersByTimeAsync(1)
    for (const batch of kafka.batches) batch.settle()
    await vi.advanceTimersByTimeAsync(1)
    for (const batch of kafka.batches) batch.settle()
    await vi.advanceTimersByTimeAsync(1)
    expect(kafka.batches.map((_, index) => kafka.keysOf(index))).toEqual([['a', 'b'], ['c'], ['d'], ['e']])
  })

  it('answers a size refusal of a lone message to it alone, and of a batch as a retry to each', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send)
    const alone = outcome(queue.send('t', message('alone')))
    await vi.advanceTimersByTimeAsync(1)
    const pair = ['p1', 'p2'].map((key) => outcome(queue.send('t', message(key))))
    kafka.batches[0]!.settle(sizeRefusal)
    await vi.advanceTimersByTimeAsync(1)
    kafka.batches[1]!.settle(sizeRefusal)
    await vi.advanceTimersByTimeAsync(0)
    expect(alone.value).toBe(sizeRefusal)
    expect(pair.map((answer) => answer.value)).toEqual([
      expect.any(BatchRefusedBySizeError),
      expect.any(BatchRefusedBySizeError),
    ])
  })

  it('holds at most maxQueuedBytes while Kafka does not answer, refusing the rest at once', async () => {
    const kafka = kafkaStandIn()
    const limit = size('m0') * 10
    const queue = producer(kafka.send, { maxQueuedBytes: limit, timeoutMs: 60_000 })
    void queue.send('t', message('in-flight')) // Kafka takes it and never answers
    await vi.advanceTimersByTimeAsync(1)
    const answers = Array.from({ length: 25 }, (_, index) => outcome(queue.send('t', message(`m${index}`))))
    await vi.advanceTimersByTimeAsync(0)
    expect(queue.queuedBytes).toBeLessThanOrEqual(limit)
    expect(queue.queuedMessages).toBe(10)
    expect(answers.slice(10).every((answer) => answer.value instanceof QueueFullError)).toBe(true)
    expect(answers.slice(0, 10).every((answer) => answer.value === undefined)).toBe(true)
  })

  it('takes a message larger than the queue limit into an empty queue', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send, { maxQueuedBytes: 10 })
    const answer = outcome(queue.send('t', message('big')))
    await vi.advanceTimersByTimeAsync(1)
    kafka.batches[0]!.settle()
    await vi.advanceTimersByTimeAsync(0)
    expect(answer.value).toBe('ok')
  })

  it('refuses a message still queued at its deadline and never sends it, even once Kafka answers', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send, { timeoutMs: 1_000 })
    const first = outcome(queue.send('t', message('first')))
    await vi.advanceTimersByTimeAsync(1)
    const waiting = outcome(queue.send('t', message('waiting')))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(waiting.value).toBeInstanceOf(PublishTimeoutError)
    expect(queue.queuedBytes).toBe(0)
    const later = outcome(queue.send('t', message('later')))
    kafka.batches[0]!.settle()
    await vi.advanceTimersByTimeAsync(1)
    kafka.batches[1]!.settle()
    await queue.drain()
    expect(kafka.allSentKeys()).toEqual(['first', 'later'])
    expect([first.value, later.value]).toEqual(['ok', 'ok'])
  })

  it('gives a message already handed to Kafka Kafka verdict, not a timeout', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send, { timeoutMs: 1_000 })
    const acknowledged = outcome(queue.send('t', message('a')))
    await vi.advanceTimersByTimeAsync(5_000)
    expect(acknowledged.value).toBeUndefined()
    kafka.batches[0]!.settle()
    await vi.advanceTimersByTimeAsync(0)
    expect(acknowledged.value).toBe('ok')

    const failed = outcome(queue.send('t', message('b')))
    await vi.advanceTimersByTimeAsync(5_000)
    const down = new Error('Connection error')
    kafka.batches[1]!.settle(down)
    await vi.advanceTimersByTimeAsync(0)
    expect(failed.value).toBe(down)
  })

  it('drain sends everything queued', async () => {
    const kafka = kafkaStandIn()
    const queue = producer(kafka.send, { maxBatchBytes: size('a') })
    const answers = ['a', 'b', 'c'].map((key) => outcome(queue.send('t', message(key))))
    const drained = queue.drain()
    for (let index = 0; index < 3; index++) {
      await vi.advanceTimersByTimeAsync(0)
      kafka.batches[index]!.settle()
    }
    await drained
    expect(answers.map((answer) => answer.value)).toEqual(['ok', 'ok', 'ok'])
    expect(kafka.batches.length).toBe(3)
  })
})

describe('messageBytes', () => {
  it('counts value, key and headers, plus the record overhead', () => {
    expect(
      messageBytes({
        key: 'kk',
        value: Buffer.alloc(10),
        headers: { h: 'vvv', b: Buffer.alloc(4), l: ['x', 'yy'] },
      }),
    ).toBe(10 + 2 + (1 + 3) + (1 + 4) + (1 + 1) + (1 + 2) + 128) // a repeated name is written once per value
  })
})
