import { describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { createRandom, type Random } from '../../generator/random.ts'
import { classifyWebhook } from '../../services/ingress/classify-webhook.ts'
import { parseJsonBody } from '../../services/ingress/json-body.ts'
import { fixtureNames, loadFixtureText } from '../../test/fixtures/index.ts'
import { wireHeaderBytes } from './event-codec.ts'
import type { IngestMetadata } from './event-record.ts'
import { transcodeConversation } from './json-avro-transcoder.ts'

// The fast path either declines or gives exactly what today's path gives for the same body:
// parseJsonBody, classifyWebhook (a conversation, its session id) and the validate-and-write
// walk's bytes. Misfits, bad JSON and every refusal are declined, so they keep today's answers.
const ingest: IngestMetadata = { source: 'prod', receivedAt: 1_764_000_000_123 }
const sessionId = '0b6c3d5e-8f1a-4b2c-9d3e-4f5a6b7c8d9e'

function todayOf(body: Buffer) {
  try {
    return classifyWebhook(parseJsonBody(body), ingest)
  } catch (error) {
    return { kind: 'refused' as const, error }
  }
}

/** 'same' when the fast path answered exactly as today's path, 'declined' when it left it to it. */
function compare(body: Buffer | string): 'same' | 'declined' {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const fast = transcodeConversation(bytes, ingest)
  if (fast === undefined) return 'declined'
  const today = todayOf(bytes)
  expect(today.kind, bytes.toString().slice(0, 200)).toBe('conversation')
  if (today.kind !== 'conversation') return 'declined'
  expect(fast.sessionId).toBe(today.sessionId)
  expect(fast.avro.subarray(wireHeaderBytes).equals(today.avro.subarray(wireHeaderBytes))).toBe(true)
  return 'same'
}

const envelope = (data: Record<string, unknown>) =>
  JSON.stringify({ event: 'ConversationComplete', data: { session_id: sessionId, ...data } })

/** Every object's keys in another order (deterministic). */
function shuffleKeys(value: unknown, rng: Random): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, rng))
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value).map(([key, item]) => [key, shuffleKeys(item, rng)] as const)
  for (let index = entries.length - 1; index > 0; index--) {
    const other = rng.int(0, index)
    ;[entries[index], entries[other]] = [entries[other]!, entries[index]!]
  }
  return Object.fromEntries(entries)
}

describe('transcodeConversation: the fast path from JSON bytes to Avro', () => {
  it('takes every generated conversation of the benchmark’s shape and writes today’s bytes', () => {
    // As bench/ingress-load.ts makes its bodies (seed 99, 40 items), and more seeds and sizes.
    const events = [
      ...generateConversations({ count: 40, seed: 99, historyItems: 40 }),
      ...generateConversations({ count: 20, seed: 5, explicitNullRate: 1 }),
      ...generateConversations({ count: 20, seed: 6, failedRoomRate: 1 }),
      ...generateConversations({ count: 3, seed: 7, historyItems: 600 }),
      ...generateConversations({
        count: 20,
        seed: 8,
        historyItems: 0,
        testRunRate: 1,
        campaignRate: 0,
        webCallRate: 0,
      }),
    ]
    for (const event of events) expect(compare(JSON.stringify(event))).toBe('same')
  })

  it('declines conversations with fields the schema does not know, and takes the others', () => {
    for (const event of generateConversations({ count: 40, seed: 9, unknownFieldRate: 0.5 })) {
      const outcome = compare(JSON.stringify(event))
      const text = JSON.stringify(event)
      const hasUnknown = todayOf(Buffer.from(text)).kind === 'conversation' && outcome === 'declined'
      expect(outcome === 'same' || hasUnknown).toBe(true)
    }
  })

  it('writes today’s bytes for every fixture (every item kind); only unknown fields are declined', () => {
    for (const name of fixtureNames) {
      const outcome = compare(loadFixtureText(name))
      expect(outcome, name).toBe(name === 'unknown-fields' ? 'declined' : 'same')
    }
  })

  it('takes keys in any order and any JSON whitespace, with a byte-order mark', () => {
    const rng = createRandom(31)
    for (const event of generateConversations({ count: 15, seed: 32 })) {
      expect(compare(JSON.stringify(shuffleKeys(event, rng)))).toBe('same')
      expect(compare(JSON.stringify(event, null, 2))).toBe('same')
      expect(compare(JSON.stringify(event, null, '\t').replaceAll('\n', '\r\n'))).toBe('same')
      expect(
        compare(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(event))])),
      ).toBe('same')
    }
  })

  it('writes text with escapes, multi-byte and astral characters as JSON.parse reads it', () => {
    const texts = [
      '',
      'plain',
      'a'.repeat(64),
      'a'.repeat(65),
      'line\nbreak\ttab\rreturn\bback\fform "quoted" \\ slash/',
      'ü€😀 ключ 漢字',
      '😀'.repeat(100),
      'x'.repeat(5000),
      '\u0000\u001f\u007f',
    ]
    for (const [index, text] of texts.entries()) {
      expect(compare(envelope({ agent_name: text, history: [{ content: text, tools_added: [text] }] }))).toBe(
        'same',
      )
      // Map keys are written as they are (multi-byte too); a key with an escape is declined.
      expect(compare(envelope({ url_parameters: { key: text, [`kü€😀${index}`]: text } }))).toBe('same')
    }
    expect(
      transcodeConversation(Buffer.from(envelope({ url_parameters: { 'a\nb': 'x' } })), ingest),
    ).toBeUndefined()
    // Escapes JSON.stringify does not write: \/, \u of every width, surrogate pairs.
    const escaped = String.raw`{"event":"ConversationComplete","data":{"session_id":"${sessionId}","agent_name":"\/\u0041\u00e9\u20ac\ud83d\ude00\uD83D\uDE00 \u0000 end"}}`
    expect(compare(escaped)).toBe('same')
    // Lone surrogates and escapes in checked fields: declined (today's path still takes or refuses them).
    for (const text of [String.raw`\ud83d`, String.raw`\ude00 x`, String.raw`a\ud83dz`])
      expect(
        transcodeConversation(
          Buffer.from(
            `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","agent_name":"${text}"}}`,
          ),
          ingest,
        ),
      ).toBeUndefined()
    expect(
      transcodeConversation(
        Buffer.from(`{"event":"Conversation\\u0043omplete","data":{"session_id":"${sessionId}"}}`),
        ingest,
      ),
    ).toBeUndefined()
  })

  it('reads numbers as JSON.parse does, and timestamps at the storable range’s edges as the walk checks them', () => {
    const numbers = [
      '0',
      '-0',
      '-0.0',
      '1',
      '230.251',
      '0.5422230766907179',
      '0.16525006187929472',
      '0.005763340136987497',
      '9007199254740991',
      '9007199254740993',
      '123456789012345678901234567890',
      '1e300',
      '1E+2',
      '-2.5e-3',
      '5e-324',
      '0.1',
      '0.30000000000000004',
      '1.7976931348623157e308',
      '0.0000000000000000000000001',
    ]
    for (const number of numbers) {
      const body = envelope({ history: [{ transcript_confidence: 0, metrics: { e2e_latency: 0 } }] })
        .replace('"transcript_confidence":0', `"transcript_confidence":${number}`)
        .replace('"e2e_latency":0', `"e2e_latency":${number}`)
      expect(compare(body), number).toBe('same')
    }
    // Not finite once read, or not JSON: declined (today's path quarantines or refuses them).
    for (const number of ['1e400', '-1e999', '01', '1.', '.5', '+1', '1e', '0x10', 'NaN'])
      expect(
        transcodeConversation(
          Buffer.from(
            envelope({ duration_seconds: 0 }).replace('"duration_seconds":0', `"duration_seconds":${number}`),
          ),
          ingest,
        ),
        number,
      ).toBeUndefined()
    const storable = [
      '1900-01-01T00:00:00.000Z',
      '2299-12-31T23:59:59.999Z',
      '1900-01-01T02:00:00+02:00',
      '2024-02-29T12:00:00Z',
      '2025-06-02 06:02:10.223671z',
      '2025-06-02T06:02Z',
      '2025-06-02T06:02:10.123456789-0530',
    ]
    for (const timestamp of storable)
      expect(compare(envelope({ created_at: timestamp })), timestamp).toBe('same')
    for (const timestamp of [
      '1899-12-31T23:59:59.999Z',
      '2300-01-01T00:00:00Z',
      '2023-02-29T00:00:00Z',
      'soon',
    ]) {
      const body = Buffer.from(envelope({ created_at: timestamp }))
      expect(transcodeConversation(body, ingest), timestamp).toBeUndefined()
      expect(todayOf(body).kind, timestamp).toBe('quarantine') // its problems come from today's path
    }
  })

  it('writes nulls, empty arrays and maps, and our ingestion metadata as today', () => {
    expect(compare(envelope({}))).toBe('same')
    expect(
      compare(envelope({ history: [], url_parameters: {}, test_eval_result: {}, room_metadata: {} })),
    ).toBe('same')
    expect(
      compare(
        envelope({
          agent_id: null,
          history: null,
          url_parameters: null,
          test_eval_result: { reasons: null },
        }),
      ),
    ).toBe('same')
    expect(
      compare(envelope({ history: Array.from({ length: 70 }, (_, index) => ({ id: String(index) })) })),
    ).toBe('same')
    expect(
      compare(
        envelope({
          url_parameters: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v'])),
        }),
      ),
    ).toBe('same')
    const body = Buffer.from(envelope({ agent_name: 'x' }))
    for (const metadata of [
      { source: null, receivedAt: null },
      { source: 'ü', receivedAt: -(2 ** 40) },
    ]) {
      const fast = transcodeConversation(body, metadata)!
      const today = classifyWebhook(parseJsonBody(body), metadata)
      expect(today.kind === 'conversation' && fast.avro.subarray(5).equals(today.avro.subarray(5))).toBe(true)
    }
  })

  it('declines what today’s path refuses, quarantines or reads another way', () => {
    const declined = [
      '',
      ' ',
      'null',
      '[]',
      '{}',
      '{"event":"ConversationComplete"}',
      `{"event":"OtherEvent","data":{"session_id":"${sessionId}"}}`,
      `{"data":{"session_id":"${sessionId}"}}`,
      `{"event":"ConversationComplete","data":{"session_id":"not-a-uuid"}}`,
      `{"event":"ConversationComplete","data":{"session_id":null}}`,
      `${envelope({})} x`,
      `${envelope({})}{}`,
      envelope({ history: [null] }),
      envelope({ history: [{ role: 7 }] }),
      envelope({ url_parameters: { a: 1 } }),
      envelope({ url_parameters: { 1: 'index keys come first in JSON.parse' } }),
      envelope({ url_parameters: { constructor: 'x' } }),
      envelope({ interrupted: true }), // unknown at this level
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","__proto__":{}}}`,
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","url_parameters":{"__proto__":"x"}}}`,
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","agent_name":"a","agent_name":"b"}}`,
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","url_parameters":{"a":"1","a":"2"}}}`,
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","agent\\u005fname":"a"}}`,
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}","agent_name":"raw\ncontrol"}}`,
      `{"event":"ConversationComplete","data":{"session_id":"${sessionId}",}}`,
    ]
    for (const body of declined)
      expect(transcodeConversation(Buffer.from(body), ingest), body).toBeUndefined()
    expect(transcodeConversation(Buffer.from([0x7b, 0xff, 0x7d]), ingest)).toBeUndefined() // not UTF-8
  })

  it('declines or writes today’s bytes for thousands of mutated bodies (seeded fuzz)', () => {
    const rng = createRandom(4242)
    const bases = generateConversations({ count: 12, seed: 43, historyItems: 6, explicitNullRate: 0.5 }).map(
      (event) => JSON.stringify(event),
    )
    const replacements = [
      'null',
      '0',
      '-1.5e3',
      '"x"',
      '""',
      'true',
      '[]',
      '{}',
      '[null]',
      '"2025-06-02T06:02:10Z"',
    ]
    const mutate = (text: string): string => {
      const at = rng.int(0, text.length - 1)
      switch (rng.int(0, 7)) {
        case 0: // truncate
          return text.slice(0, at)
        case 1: {
          // a value (after a colon) replaced by another of any type
          const colon = text.indexOf(':', at)
          if (colon < 0) return text
          const end = text.slice(colon + 1).search(/[,}\]]/)
          return `${text.slice(0, colon + 1)}${rng.pick(replacements)}${text.slice(colon + 1 + Math.max(end, 0))}`
        }
        case 2: {
          // a key-value pair duplicated (JSON.parse keeps the last) or removed
          const start = text.indexOf(',"', at)
          if (start < 0) return text
          const end = text.indexOf(',"', start + 1)
          if (end < 0) return text
          const pair = text.slice(start, end)
          return rng.chance(0.5)
            ? text.slice(0, end) + pair + text.slice(end)
            : text.slice(0, start) + text.slice(end)
        }
        case 3: {
          // a character in a string written as an escape
          const quote = text.indexOf('"', at)
          if (quote < 0 || quote + 2 >= text.length) return text
          const code = text.charCodeAt(quote + 1)
          const written = rng.pick([
            `\\u${code.toString(16).padStart(4, '0')}`,
            '\\n',
            '\\"',
            '\\\\',
            '\\ud83d\\ude00',
          ])
          return text.slice(0, quote + 1) + written + text.slice(quote + 2)
        }
        case 4: // whitespace where JSON allows it, or where it does not
          return text.slice(0, at) + rng.pick([' ', '\n', '\t', '\r\n ', '\u00a0']) + text.slice(at)
        case 5: // a byte changed
          return text.slice(0, at) + String.fromCharCode(rng.int(0, 127)) + text.slice(at + 1)
        case 6: {
          // keys of the whole body reordered
          try {
            return JSON.stringify(shuffleKeys(JSON.parse(text), rng))
          } catch {
            return text
          }
        }
        default: // a UTF-8 sequence cut
          return text
      }
    }
    let same = 0
    let declined = 0
    for (let index = 0; index < 3000; index++) {
      let text = rng.pick(bases)
      for (let step = rng.int(1, 3); step > 0; step--) text = mutate(text)
      let body = Buffer.from(text)
      if (rng.chance(0.02)) body = Buffer.concat([body.subarray(0, body.length - 1), Buffer.from([0xc3])])
      if (compare(body) === 'same') same++
      else declined++
    }
    // Both outcomes, many times each.
    expect(same).toBeGreaterThan(300)
    expect(declined).toBeGreaterThan(300)
  }, 60_000)
})
