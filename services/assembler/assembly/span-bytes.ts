import type { OtlpAttribute, OtlpSpan } from '../../../core/otlp/otlp-spans.ts'

// What a span held in memory weighs, roughly, for the assembler's memory cap: its texts (two bytes a
// character: V8 keeps a string with any non-Latin-1 character that way) and a fixed share per object.
// Counting spans alone is not enough: LiveKit repeats the whole chat context on every LLM span, so a
// span of a long call weighs far more than one of a short call (bench/results/otlp.md measured 3.6 KB
// of heap per span on average, and an assembler at its span cap out of heap). Pure.
const perObject = 64

function attributeBytes(attribute: OtlpAttribute): number {
  return (
    perObject +
    2 * (attribute.key.length + (attribute.string_value?.length ?? 0) + (attribute.json_value?.length ?? 0))
  )
}

export function spanBytes(span: OtlpSpan): number {
  let bytes = 4 * perObject + 2 * (span.name.length + (span.status_message?.length ?? 0))
  for (const attribute of span.attributes) bytes += attributeBytes(attribute)
  for (const event of span.events) {
    bytes += perObject + 2 * event.name.length
    for (const attribute of event.attributes) bytes += attributeBytes(attribute)
  }
  return bytes
}
