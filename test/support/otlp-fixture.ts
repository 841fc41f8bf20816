import { readFileSync } from 'node:fs'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { decodeOtlpJson } from '../../core/otlp/otlp-json-decoding.ts'
import type { OtlpSpan, OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { groupOtlpSpans } from '../../core/otlp/otlp-spans-grouping.ts'
import { exportRequests, livekitTrace } from '../../generator/livekit-trace.ts'
import { type AssembledTrace, assembleTrace } from '../../services/assembler/mapping/assemble-trace.ts'

// The OTLP/HTTP JSON fixtures (test/fixtures/otlp/) as the receiver puts them on the spans topic:
// read by the receiver's own decoder and grouping (core/otlp), so the assembler's tests see exactly
// what POST /v1/traces writes — one OtlpSpans per trace and resource, microsecond times, typed
// attribute values, an array in json_value as its OTLP JSON ({"arrayValue":{"values":[…]}}).

/** One OtlpSpans per trace of each resource of the request, as the receiver groups them. */
export function otlpSpansOf(request: unknown, source = 'test', receivedAt = 0): OtlpSpans[] {
  const grouped = groupOtlpSpans(decodeOtlpJson(request), source, receivedAt)
  if (grouped.rejectedSpans > 0) throw new Error(`fixture spans rejected: ${grouped.errorMessage}`)
  return grouped.messages
}

export const livekitFixtureFile = new URL('../fixtures/otlp/livekit-1.x-conversation.json', import.meta.url)
export const pipecatFixtureFile = new URL('../fixtures/otlp/pipecat-conversation.json', import.meta.url)
/** LiveKit Agents 1.7.1's AgentSession in text mode (test/otlp/clients/livekit_client): a tool call, a handoff. */
export const livekitTextFixtureFile = new URL(
  '../fixtures/otlp/livekit-1.x-text-session.json',
  import.meta.url,
)

export function readOtlpFixture(file: URL, source = 'test'): OtlpSpans[] {
  return otlpSpansOf(JSON.parse(readFileSync(file, 'utf8')), source)
}

/**
 * A trace's spans split over `parts` messages as an SDK's batches would send them, in a shuffled
 * order (a fixed permutation: tests stay deterministic); the root span in the last part.
 */
export function splitIntoBatches(message: OtlpSpans, parts: number, rootName: string): OtlpSpans[] {
  const root = message.spans.filter((span) => span.name === rootName)
  const rest = message.spans.filter((span) => span.name !== rootName)
  // A fixed shuffle: every 7th span of the rest, stepping around.
  const shuffled: OtlpSpan[] = []
  for (let offset = 0; offset < 7; offset++)
    for (let index = offset; index < rest.length; index += 7) shuffled.push(rest[index]!)
  const size = Math.ceil(shuffled.length / parts)
  const messages: OtlpSpans[] = []
  for (let part = 0; part < parts; part++) {
    const spans = shuffled.slice(part * size, (part + 1) * size)
    if (part === parts - 1) spans.push(...root)
    messages.push({ ...message, spans })
  }
  return messages
}

/**
 * A generated conversation as the assembler makes it of the spans LiveKit Agents 1.7 would export
 * for it (generator/livekit-trace.ts), sent in its exporter batches and grouped as the receiver does.
 */
export function assembledAsLivekitTrace(
  event: ConversationCompleteEvent,
  source: string,
  receivedAt: number,
): AssembledTrace | null {
  const trace = livekitTrace(event, 'generated-agent')
  const messages = exportRequests(trace).flatMap((request) => otlpSpansOf(request, source, receivedAt))
  return assembleTrace({
    traceId: trace.traceId,
    source,
    resourceAttributes: messages[0]!.resource_attributes,
    spans: messages.flatMap((message) => message.spans),
  })
}
