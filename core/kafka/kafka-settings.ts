// How a process reaches Kafka: the settings every client of core/kafka is made from.

export interface KafkaSettings {
  /** Comma-separated host:port list (KAFKA_BROKERS). */
  brokers: string
  clientId: string
  /** Longest one request to a broker may take (default 30 s). */
  requestTimeoutMs?: number
}

export const brokerList = (settings: KafkaSettings): string[] =>
  settings.brokers.split(',').map((broker) => broker.trim())

/** The connection options of every @platformatic/kafka client (producers, admin, the worker's
 *  consumer): a request times out after `requestTimeoutMs` and a failed one is retried 3 times. */
export const platformaticClientOptions = (settings: KafkaSettings) => ({
  clientId: settings.clientId,
  bootstrapBrokers: brokerList(settings),
  connectTimeout: 3_000,
  requestTimeout: settings.requestTimeoutMs ?? 30_000,
  retries: 3,
  retryDelay: 200,
})
