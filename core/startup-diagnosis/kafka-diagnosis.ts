import type { Diagnosis } from './diagnosis.ts'
import type { BrokerObservation } from './kafka-probe.ts'

// KAFKA_BROKERS at start: one broker that answers as Kafka is enough (it tells the client about
// the others). None: say what each address did and what to try.
export function diagnoseKafka(brokers: string, observed: BrokerObservation[]): Diagnosis | undefined {
  if (observed.some((broker) => broker.kind === 'kafka')) return undefined
  const what = observed
    .map((broker) => {
      if (broker.kind === 'unreachable') return `${broker.broker}: ${broker.reason}`
      if (broker.kind === 'not-kafka') return `${broker.broker}: ${broker.answered}`
      return `${broker.broker}: Kafka`
    })
    .join('; ')
  const somethingElse = observed.some((broker) => broker.kind === 'not-kafka')
  return {
    variable: 'KAFKA_BROKERS',
    retriable: !somethingElse,
    message: somethingElse
      ? `KAFKA_BROKERS=${brokers}: no Kafka broker answered (${what}). Something other than Kafka listens there: check the port (the local stack's Kafka: localhost:9092; docker compose's from the host: localhost:29092).`
      : `KAFKA_BROKERS=${brokers}: no Kafka broker is reachable (${what}). Start the local stack (\`./run dev\` does, or \`bash scripts/stack/stack.sh up kafka registry\`), or set KAFKA_BROKERS to your brokers' host:port (docker compose's from the host: localhost:29092).`,
  }
}
