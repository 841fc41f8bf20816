import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createKafkaAdmin,
  ensureTopics,
  fetchTopicMetadata,
  topicMessageLimits,
} from '../../core/kafka/kafka-admin.ts'
import { kafkaBrokers } from '../stack/servers.ts'

// The admin calls of the ingress and the worker on @platformatic/kafka against the real broker:
// topics created with 6 partitions with leaders and max.message.bytes, limits read back.
describe('@platformatic/kafka admin (the ingress, the worker)', () => {
  const admin = createKafkaAdmin({ brokers: kafkaBrokers(), clientId: 'va-test-admin' })
  afterAll(() => admin.close())

  it('creates missing topics with leaders and the message limit, reads the limits back, leaves existing ones', async () => {
    const own = `test.admin.${randomUUID()}`
    const given = `test.admin.${randomUUID()}`
    await ensureTopics(
      admin,
      [
        { topic: own },
        { topic: given, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '300000' }] },
      ],
      2_000_000,
    )
    // Leaders were waited for: the metadata answers now, every partition led.
    await fetchTopicMetadata(admin, own)
    const { topics } = await admin.metadata({ topics: [own, given], forceUpdate: true })
    expect(topics.get(own)?.partitionsCount).toBe(6)
    expect(topics.get(given)?.partitionsCount).toBe(2)
    expect(topics.get(own)?.partitions.every((partition) => partition.leader >= 0)).toBe(true)
    expect(await topicMessageLimits(admin, [own, given])).toEqual(
      new Map([
        [own, 2_000_000],
        [given, 300_000],
      ]),
    )

    // Existing topics are left as they are, whatever limit is asked for now.
    await ensureTopics(admin, [{ topic: own }], 5_000_000)
    expect((await topicMessageLimits(admin, [own])).get(own)).toBe(2_000_000)
  })

  it('fails the readiness probe for a topic that does not exist', async () => {
    await expect(fetchTopicMetadata(admin, `test.admin.absent.${randomUUID()}`)).rejects.toThrow()
  })
})
