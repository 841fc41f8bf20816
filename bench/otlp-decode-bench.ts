import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { isDeepStrictEqual } from 'node:util'
import avro from 'avsc'
import { wireEncoder } from '../core/event/event-codec.ts'
import { decodeOtlpProtobuf } from '../core/otlp/otlp-protobuf-decoding.ts'
import { type OtlpSpans, otlpSpansAvroSchema } from '../core/otlp/otlp-spans.ts'
import { otlpSpansWriter } from '../core/otlp/otlp-spans-codec.ts'
import { groupOtlpSpans } from '../core/otlp/otlp-spans-grouping.ts'
import { encodeOtlpJsonAsProtobuf } from '../test/support/otlp-proto-types.ts'
import { decodeOnlyWithBufbuild, decodeWithBufbuild } from './otlp-decoders/bufbuild-decoder.ts'
import { decodeOnlyWithProtobufjs, decodeWithProtobufjs } from './otlp-decoders/protobufjs-decoder.ts'

// `npm run bench:otlp-decode`: which protobuf decoder (and Avro writer) the OTLP receiver uses, by
// measurement. Each
// candidate decodes the two real framework requests (test/fixtures/otlp/, encoded as protobuf)
// into the contract's shapes (what the receiver needs), and also decodes alone; the median of
// rounds of a fixed number of decodes is reported as µs per request and spans/s. Every candidate
// must give the receiver's result first (a faster wrong decoder is no candidate). Then the Avro
// writing of the messages made of them: avsc's writer against the compiled one (same bytes).
const fixtures = ['livekit-1.x-conversation', 'pipecat-conversation'].map((name) => {
  const json = JSON.parse(
    readFileSync(new URL(`../test/fixtures/otlp/${name}.json`, import.meta.url), 'utf8'),
  )
  const body = encodeOtlpJsonAsProtobuf(json)
  const spans = decodeOtlpProtobuf(body).reduce((sum, resource) => sum + resource.spans.length, 0)
  return { name, body, spans }
})

const candidates: Record<string, (body: Buffer) => unknown> = {
  'hand-written (core/otlp)': decodeOtlpProtobuf,
  'protobufjs 8.8.1 + shapes': decodeWithProtobufjs,
  '@bufbuild/protobuf 2.17.0 + shapes': decodeWithBufbuild,
  'protobufjs 8.8.1, decode only': decodeOnlyWithProtobufjs,
  '@bufbuild/protobuf 2.17.0, decode only': decodeOnlyWithBufbuild,
}

/** The libraries leave an empty array's `values` out of its JSON; the receiver writes `[]`. */
const comparable = (value: unknown) =>
  JSON.parse(
    JSON.stringify(value, (key, item) =>
      key === 'json_value' && item
        ? JSON.parse(item.replace(/"(arrayValue|kvlistValue)":\{\}/g, '"$1":{"values":[]}'))
        : item,
    ),
  )

for (const { name, body } of fixtures) {
  const expected = comparable(decodeOtlpProtobuf(body))
  for (const [candidate, decode] of Object.entries(candidates)) {
    if (candidate.includes('decode only')) continue
    if (!isDeepStrictEqual(comparable(decode(body)), expected))
      throw new Error(`${candidate} decodes ${name} differently`)
  }
}

const rounds = 15
const perRound = 200

/** Median µs of one call, over rounds of perRound calls after a warm-up. */
function medianMicros(work: () => unknown): number {
  for (let warm = 0; warm < 500; warm++) work()
  const times: number[] = []
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint()
    for (let index = 0; index < perRound; index++) work()
    times.push(Number(process.hrtime.bigint() - started) / 1e3 / perRound)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(rounds / 2)]!
}

console.log(
  `OTLP protobuf decoders, Node ${process.version}, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
)
console.log('| fixture | body bytes | spans | decoder | µs per request (median) | spans/s |')
console.log('|---|---|---|---|---|---|')
for (const { name, body, spans } of fixtures) {
  for (const [candidate, decode] of Object.entries(candidates)) {
    const median = medianMicros(() => decode(body))
    console.log(
      `| ${name} | ${body.length} | ${spans} | ${candidate} | ${median.toFixed(1)} | ${Math.round((spans / median) * 1e6).toLocaleString('en')} |`,
    )
  }
}

const writers = {
  'avsc 5.7 Type.encode': avro.Type.forSchema(otlpSpansAvroSchema),
  'compiled (core/event/avro-event-writer.ts)': otlpSpansWriter,
}
console.log('\n| fixture | Avro bytes | writer | µs per request (median) |')
console.log('|---|---|---|---|')
for (const { name, body } of fixtures) {
  const { messages } = groupOtlpSpans(decodeOtlpProtobuf(body), 'bench', Date.now())
  const encoded = Object.values(writers).map((writer) =>
    Buffer.concat(messages.map(wireEncoder<OtlpSpans>(1, writer))),
  )
  if (!encoded[0]!.equals(encoded[1]!)) throw new Error(`the writers write ${name} differently`)
  for (const [writerName, writer] of Object.entries(writers)) {
    const encode = wireEncoder<OtlpSpans>(1, writer)
    const median = medianMicros(() => messages.map(encode))
    console.log(`| ${name} | ${encoded[0]!.length} | ${writerName} | ${median.toFixed(1)} |`)
  }
}
