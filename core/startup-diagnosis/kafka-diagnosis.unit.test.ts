import { describe, expect, it } from 'vitest'
import { diagnoseKafka } from './kafka-diagnosis.ts'

describe('diagnoseKafka', () => {
  it('is content when one broker answers as Kafka', () => {
    expect(
      diagnoseKafka('a:9092,b:9092', [
        { broker: 'a:9092', kind: 'unreachable', reason: 'connection refused: nothing listens there' },
        { broker: 'b:9092', kind: 'kafka' },
      ]),
    ).toBeUndefined()
  })

  it('reports unreachable brokers: the variable, what each did, what to try', () => {
    const found = diagnoseKafka('localhost:9092', [
      { broker: 'localhost:9092', kind: 'unreachable', reason: 'connection refused: nothing listens there' },
    ])
    expect(found).toMatchObject({ variable: 'KAFKA_BROKERS', retriable: true })
    expect(found!.message).toContain('KAFKA_BROKERS=localhost:9092: no Kafka broker is reachable')
    expect(found!.message).toContain('localhost:9092: connection refused')
    expect(found!.message).toContain('scripts/stack/stack.sh up kafka registry')
    expect(found!.message).toContain('localhost:29092')
  })

  it('reports something other than Kafka on the port as a wrong address', () => {
    const found = diagnoseKafka('localhost:8081', [
      { broker: 'localhost:8081', kind: 'not-kafka', answered: 'it sent "HTTP/1.1 400 Bad Request"' },
    ])
    expect(found).toMatchObject({ variable: 'KAFKA_BROKERS', retriable: false })
    expect(found!.message).toContain('localhost:8081: it sent "HTTP/1.1 400 Bad Request"')
    expect(found!.message).toContain('Something other than Kafka listens there')
  })
})
