import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureTopics, topicMessageLimits, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { endOffsets, readTopic, testKafka } from '../support/kafka-test-helpers.ts'

// One event larger than the event topic takes (the topic's limit as Kafka applies it; the
// ingress's body limit set above it, as on a cluster whose topic was made smaller) arrives among
// concurrent small webhooks: only it is answered 413; every small one is answered 202 and is in Kafka.
describe('an oversized event among concurrent small ones', () => {
  const kafka = testKafka()
  let topicLimit: number
  let ingress: TestIngress

  beforeAll(async () => {
    topicLimit = await withKafkaAdmin(kafka, async (admin) => {
      await ensureTopics(admin, [{ topic: topics.conversationComplete }])
      return (await topicMessageLimits(admin, [topics.conversationComplete])).get(
        topics.conversationComplete,
      )!
    })
    ingress = await startTestIngress({ INGRESS_BODY_LIMIT_BYTES: String(topicLimit + 4 * 1024 * 1024) })
    await ingress.waitUntilReady()
  })
  afterAll(async () => {
    await ingress?.close()
  })

  it('answers 413 to the big one alone; the small ones are 202 and in the topic', async () => {
    const rounds = 4
    const smallPerRound = 60
    const smalls = generateConversations({ count: rounds * smallPerRound, seed: 4242, historyItems: 3 })
    const bigs = generateConversations({ count: rounds, seed: 4343, historyItems: 2 })
    const start = await endOffsets(kafka, topics.conversationComplete)
    const smallStatuses: number[] = []
    const bigAnswers: Array<{ status: number; error: string }> = []
    for (let round = 0; round < rounds; round++) {
      const big = bigs[round]!
      big.data.history![0]!.content = 'x'.repeat(topicLimit + 1024 * 1024)
      const posts: Promise<void>[] = []
      // Small ones before, with and after the big one, so that they share the producer's batches.
      const postSmall = (index: number) =>
        postJson(ingress.webhookUrl(), smalls[round * smallPerRound + index]).then(async (response) => {
          smallStatuses.push(response.status)
          await response.body?.cancel()
        })
      for (let index = 0; index < smallPerRound / 2; index++) posts.push(postSmall(index))
      posts.push(
        postJson(ingress.webhookUrl(), big).then(async (response) => {
          bigAnswers.push({
            status: response.status,
            error: ((await response.json()) as { error: string }).error,
          })
        }),
      )
      for (let index = smallPerRound / 2; index < smallPerRound; index++) posts.push(postSmall(index))
      await Promise.all(posts)
    }
    expect(bigAnswers).toEqual(Array(rounds).fill({ status: 413, error: 'payload_too_large' }))
    expect(smallStatuses).toEqual(Array(rounds * smallPerRound).fill(202))

    const reader = await readTopic(kafka, topics.conversationComplete, start)
    try {
      const wanted = new Set(smalls.map((event) => event.data.session_id))
      const messages = await reader.waitFor(
        (received) => received.filter((message) => wanted.has(message.key!.toString())).length >= wanted.size,
        60_000,
      )
      const keys = new Set(messages.map((message) => message.key!.toString()))
      for (const sessionId of wanted) expect(keys.has(sessionId)).toBe(true)
      for (const big of bigs) expect(keys.has(big.data.session_id)).toBe(false)
    } finally {
      await reader.stop()
    }
  })
})
