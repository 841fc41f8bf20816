import { describe, expect, it } from 'vitest'
import { javaCompatiblePartitioner } from './kafka-producer.ts'

describe('javaCompatiblePartitioner', () => {
  const context = { metadata: undefined }
  const partitionOf = (key: string, partitions: number) =>
    javaCompatiblePartitioner()({ topic: 't' }, Buffer.from(key), context) % partitions

  it("puts a keyed message where the Java client does: Kafka's own murmur2 vectors", () => {
    // Kafka's UtilsTest.testMurmur2; the Java client's partition is toPositive(murmur2(key)) % n.
    const javaHashes: Record<string, number> = {
      '21': -973932308,
      foobar: -790332482,
      'a-little-bit-long-string': -985981536,
      'a-little-bit-longer-string': -1486304829,
      lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8: -58897971,
      abc: 479470107,
    }
    for (const [key, hash] of Object.entries(javaHashes))
      for (const partitions of [6, 7, 12])
        expect(partitionOf(key, partitions), `${key} of ${partitions}`).toBe((hash & 0x7fffffff) % partitions)
  })
  it('puts a keyed message where kafkajs, the producer before #13, put it (a session keeps its partition)', () => {
    // kafkajs's DefaultPartitioner for 6, 7 and 12 partitions, recorded before kafkajs was removed:
    // every key length modulo 4 (murmur2 hashes the last 1-3 bytes apart), multi-byte UTF-8, session ids.
    const kafkajsPartitions: Record<string, [number, number, number]> = {
      a: [4, 5, 4],
      ab: [2, 0, 2],
      abc: [3, 4, 3],
      abcd: [2, 5, 8],
      abcde: [1, 4, 1],
      é: [3, 4, 3],
      '0f6b7f4e-3c1d-4b8e-9a51-2f6c0d4e8b17': [2, 4, 2],
      'c2a9e5d1-7b3f-4e60-8d2a-91f4b6c3e05a': [0, 5, 0],
      '5e8d2c41-a9b7-4f13-b6e0-3d7a1c9f2e84': [3, 2, 9],
      'session-42': [4, 6, 10],
      '+15551230000': [1, 0, 7],
    }
    for (const [key, expected] of Object.entries(kafkajsPartitions))
      expect(
        [6, 7, 12].map((partitions) => partitionOf(key, partitions)),
        key,
      ).toEqual(expected)
  })
  it('spreads unkeyed messages over every partition', () => {
    const partitions = 6
    const partitioner = javaCompatiblePartitioner()
    const used = new Set<number>()
    for (let index = 0; index < partitions; index++)
      used.add(partitioner({ topic: 't' }, undefined, context) % partitions)
    expect(used.size).toBe(partitions)
  })
})
