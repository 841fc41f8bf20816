import { randomUUID } from 'node:crypto'
import { Agent, request } from 'node:http'
import { gzipSync } from 'node:zlib'
import type { ConversationCompleteEvent } from '../core/event/conversation-complete.types.ts'
import type { EventCodec } from '../core/event/event-codec.ts'
import { decodeOtlpProtobuf } from '../core/otlp/otlp-protobuf-decoding.ts'
import type { OtlpSpansCodec } from '../core/otlp/otlp-spans-codec.ts'
import { groupOtlpSpans } from '../core/otlp/otlp-spans-grouping.ts'
import { generateConversations } from '../generator/conversation-generator.ts'
import {
  exportRequests,
  type LivekitTrace,
  livekitTrace,
  type OtlpJsonRequest,
} from '../generator/livekit-trace.ts'
import { assembleTrace } from '../services/assembler/mapping/assemble-trace.ts'
import { encodeOtlpJsonAsProtobuf } from '../test/support/otlp-proto-types.ts'
import { benchSecret } from './ingress-load.ts'

// The load of `npm run bench:otlp-assembly` (bench/otlp-assembly-bench.ts): generated conversations
// (the generator's default mix, `historyItems` history items each) as LiveKit Agents 1.7 traces them
// (generator/livekit-trace.ts), split into the requests its BatchSpanProcessor makes (5 s schedule
// delay, 512 spans at most: the root, ending last, is in the last request), each encoded as the
// Python exporter sends it (protobuf, gzip); the same conversation as its webhook body; the
// senders that post them; and the sizes of a conversation in each form along the pipeline.

export interface ConversationLoad {
  traceId: string
  spans: number
  /** The BatchSpanProcessor's requests, gzipped protobuf, in the order it sends them (the root's last). */
  bodies: Buffer[]
  /** The same conversation as the webhook receives it. */
  webhookBody: string
}

/** Happening now, each with a session id (so a trace id) of its own: no run repeats an earlier run's traces. */
const livekitConversations = (count: number, seed: number, historyItems: number) =>
  generateConversations({ count, seed, historyItems, from: Date.now() - 30 * 60_000, spanHours: 0.4 }).map(
    (event) => ({ ...event, data: { ...event.data, session_id: randomUUID() } }),
  )

/** Copied: zlib's result is a view of its larger output buffer, which thousands of bodies would keep. */
const gzippedProtobuf = (request: OtlpJsonRequest) => Buffer.from(gzipSync(encodeOtlpJsonAsProtobuf(request)))

export function conversationLoads(count: number, seed: number, historyItems: number): ConversationLoad[] {
  return livekitConversations(count, seed, historyItems).map((event) => {
    const trace = livekitTrace(event)
    return {
      traceId: trace.traceId,
      spans: trace.spans.length,
      bodies: exportRequests(trace).map(gzippedProtobuf),
      webhookBody: JSON.stringify(event),
    }
  })
}

export const otlpHeaders = {
  'content-type': 'application/x-protobuf',
  'content-encoding': 'gzip',
  authorization: `Bearer ${benchSecret}`,
}
export const webhookPath = `/webhooks/conversation-complete?token=${benchSecret}`
export const webhookHeaders = { 'content-type': 'application/json' }

export interface Poster {
  /** Posts until the answer is not a 503 (waiting its Retry-After, as the exporters do); the last status. */
  post(path: string, body: Buffer | string, headers: Record<string, string>): Promise<number>
  /** Answers other than 200/202 seen, retried 503s included. */
  non2xx: number
  close(): void
}

export function createPoster(port: number, sockets: number): Poster {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets })
  const once = (path: string, body: Buffer | string, headers: Record<string, string>) =>
    new Promise<{ status: number; retryAfter: number }>((resolve, reject) => {
      const sent = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (response) => {
          response.resume()
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: Number(response.headers['retry-after'] ?? 1),
            }),
          )
        },
      )
      sent.setTimeout(60_000, () => sent.destroy(new Error(`no answer within 60 s from ${path}`)))
      sent.on('error', reject)
      sent.end(body)
    })
  const poster: Poster = {
    non2xx: 0,
    async post(path, body, headers) {
      for (;;) {
        const { status, retryAfter } = await once(path, body, headers)
        if (status === 200 || status === 202) return status
        poster.non2xx++
        if (status !== 503) return status
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
      }
    },
    close: () => agent.destroy(),
  }
  return poster
}

/** Each of `senders` takes the next conversation and posts all of it (`send`) before taking another. */
export async function sendAll<T>(items: readonly T[], senders: number, send: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < items.length) await send(items[next++]!)
    }),
  )
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const bytes = (value: string | Buffer) => Buffer.byteLength(value)

/** A request's Kafka messages as the receiver writes them (decode, group per trace, Avro). */
function spanMessages(protobuf: Buffer, codec: OtlpSpansCodec) {
  return groupOtlpSpans(decodeOtlpProtobuf(protobuf), 'bench', Date.now()).messages.map((message) => ({
    message,
    bytes: codec.encode(message).length,
  }))
}

function wholeRequest(trace: LivekitTrace): OtlpJsonRequest {
  return exportRequests(trace, {
    scheduleDelayMs: Number.MAX_SAFE_INTEGER,
    maxBatch: Number.MAX_SAFE_INTEGER,
  })[0]!
}

/** A conversation's sizes in each form along the pipeline (see conversationSizes). */
async function conversationSize(
  event: ConversationCompleteEvent,
  codecs: { spans: OtlpSpansCodec; event: EventCodec },
) {
  const trace = livekitTrace(event)
  const requests = exportRequests(trace)
  const json = requests.map((request) => JSON.stringify(request))
  const protobuf = requests.map(encodeOtlpJsonAsProtobuf)
  const messages = protobuf.flatMap((body) => spanMessages(body, codecs.spans))
  const whole = wholeRequest(trace)
  const wholeProtobuf = encodeOtlpJsonAsProtobuf(whole)
  const wholeMessages = spanMessages(wholeProtobuf, codecs.spans)
  const wholeMessage = wholeMessages[0]!.message
  const assembled = assembleTrace({
    traceId: wholeMessage.trace_id,
    source: 'bench',
    resourceAttributes: wholeMessage.resource_attributes,
    spans: wholeMessage.spans,
  })
  const records = await Promise.all(
    (assembled?.conversations ?? []).map((conversation) =>
      codecs.event.encode({ ...conversation.record, received_at: Date.now() }),
    ),
  )
  return {
    spans: trace.spans.length,
    requests: requests.length,
    json: json.reduce((sum, text) => sum + bytes(text), 0),
    protobuf: protobuf.reduce((sum, body) => sum + body.length, 0),
    gzip: protobuf.reduce((sum, body) => sum + gzipSync(body).length, 0),
    gzipJson: json.reduce((sum, text) => sum + gzipSync(text).length, 0),
    avro: messages.reduce((sum, message) => sum + message.bytes, 0),
    largestRequestJson: Math.max(...json.map(bytes)),
    largestRequestProtobuf: Math.max(...protobuf.map((body) => body.length)),
    largestMessage: Math.max(...messages.map((message) => message.bytes)),
    wholeJson: bytes(JSON.stringify(whole)),
    wholeProtobuf: wholeProtobuf.length,
    wholeGzip: gzipSync(wholeProtobuf).length,
    wholeMessage: Math.max(...wholeMessages.map((message) => message.bytes)),
    assembledRecord: Math.max(0, ...records.map((record) => record.length)),
    webhookJson: bytes(JSON.stringify(event)),
  }
}
type ConversationSize = Awaited<ReturnType<typeof conversationSize>>

/**
 * Sizes of `count` conversations along the pipeline: their BatchSpanProcessor requests summed as
 * OTLP JSON, protobuf and gzipped (protobuf as sent, and JSON), the largest request and Kafka span
 * message; the whole trace in one request (an exporter that sends it at once) and its message; the
 * ConversationComplete message the assembler makes of it; the same conversation's webhook body.
 */
export async function conversationSizes(
  count: number,
  seed: number,
  historyItems: number,
  codecs: { spans: OtlpSpansCodec; event: EventCodec },
) {
  const sizes: ConversationSize[] = []
  for (const event of livekitConversations(count, seed, historyItems))
    sizes.push(await conversationSize(event, codecs))
  const average = (key: keyof ConversationSize) => mean(sizes.map((size) => size[key]))
  const largest = (key: keyof ConversationSize) => Math.max(...sizes.map((size) => size[key]))
  return { count: sizes.length, average, largest }
}
