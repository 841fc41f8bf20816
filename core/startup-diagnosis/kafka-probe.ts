import { connect } from 'node:net'
import { describeNetworkFailure } from './diagnosis.ts'

// Asks one broker address whether Kafka answers there: a TCP connection, then an ApiVersions
// request (v0, the one every Kafka version answers). Tells "nothing listens" from "something
// else listens" (an HTTP server, a TLS listener). Never throws.
export type BrokerObservation =
  | { broker: string; kind: 'kafka' }
  | { broker: string; kind: 'unreachable'; reason: string }
  | { broker: string; kind: 'not-kafka'; answered: string }

const correlationId = 0x7a11

function apiVersionsRequest(): Buffer {
  const clientId = Buffer.from('voice-analytics-probe')
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length)
  body.writeInt16BE(18, 0) // ApiVersions
  body.writeInt16BE(0, 2)
  body.writeInt32BE(correlationId, 4)
  body.writeInt16BE(clientId.length, 8)
  clientId.copy(body, 10)
  const size = Buffer.alloc(4)
  size.writeInt32BE(body.length)
  return Buffer.concat([size, body])
}

/** Printable start of what a non-Kafka server sent, for the message. */
function printable(data: Buffer): string {
  const text = data
    .subarray(0, 40)
    .toString('latin1')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
  return text ? `it sent "${text}"` : `it sent ${data.length} bytes that are not a Kafka answer`
}

export function probeBroker(broker: string, timeoutMs = 3_000): Promise<BrokerObservation> {
  const at = broker.lastIndexOf(':')
  const host = broker.slice(0, at).replace(/^\[|\]$/g, '')
  const port = Number(broker.slice(at + 1))
  return new Promise((resolve) => {
    let received = Buffer.alloc(0)
    const socket = connect({ host, port })
    const done = (observation: BrokerObservation) => {
      socket.destroy()
      resolve(observation)
    }
    socket.setTimeout(timeoutMs, () =>
      done(
        received.length > 0
          ? { broker, kind: 'not-kafka', answered: printable(received) }
          : socket.connecting
            ? { broker, kind: 'unreachable', reason: describeNetworkFailure('TIMEOUT', 'timeout') }
            : {
                broker,
                kind: 'not-kafka',
                answered: 'it accepted the connection but never answered a Kafka request',
              },
      ),
    )
    socket.once('connect', () => socket.write(apiVersionsRequest()))
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      if (received.length < 8) return
      done(
        received.readInt32BE(4) === correlationId
          ? { broker, kind: 'kafka' }
          : { broker, kind: 'not-kafka', answered: printable(received) },
      )
    })
    socket.once('end', () =>
      done({
        broker,
        kind: 'not-kafka',
        answered:
          received.length > 0
            ? printable(received)
            : 'it accepted the connection and closed it without a Kafka answer (a TLS or SASL listener?)',
      }),
    )
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done({ broker, kind: 'unreachable', reason: describeNetworkFailure(error.code, error.message) }),
    )
  })
}
