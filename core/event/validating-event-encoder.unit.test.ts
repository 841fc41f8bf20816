import { describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { loadAllFixtures } from '../../test/fixtures/index.ts'
import { compileAvroWriter } from './avro-event-writer.ts'
import { wireHeaderBytes } from './event-codec.ts'
import { type IngestMetadata, toAvroRecord } from './event-record.ts'
import { eventAvroSchema } from './event-schema.ts'
import { maxUnknownFieldDepth, validateToAvro } from './event-validation.ts'
import { encodeFittingEvent, validateAndEncode } from './validating-event-encoder.ts'

// The one walk must write exactly what validateToAvro's record written by the compiled writer
// gives (the bytes the worker decodes), and take exactly the payloads validateToAvro takes.
const writer = compileAvroWriter(eventAvroSchema)
const ingest: IngestMetadata = { source: 'prod', receivedAt: 1_764_000_000_123 }
const sessionId = '0b6c3d5e-8f1a-4b2c-9d3e-4f5a6b7c8d9e'

/** Today's two steps: the record of the validation walk, written by the compiled writer. */
const target = Buffer.alloc(4 * 1024 * 1024)
function twoStepBytes(payload: unknown, metadata = ingest): Buffer {
  const end = writer.encode(toAvroRecord(payload as never, metadata), target, wireHeaderBytes)
  expect(end).toBeGreaterThan(0)
  return Buffer.from(target.subarray(wireHeaderBytes, end))
}

function expectSameBytes(payload: unknown, metadata = ingest): void {
  expect(validateToAvro(payload).problems).toEqual([])
  const value = encodeFittingEvent(payload, metadata)
  expect(value, 'the one walk took it').toBeDefined()
  expect(value!.subarray(wireHeaderBytes)).toEqual(twoStepBytes(payload, metadata))
}

/** Every path in a payload to an object's field or an array's item, with the value there. */
function* paths(value: unknown, at: (string | number)[] = []): Generator<(string | number)[]> {
  if (Array.isArray(value))
    for (const [index, item] of value.entries()) {
      yield [...at, index]
      yield* paths(item, [...at, index])
    }
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      yield [...at, key]
      yield* paths(item, [...at, key])
    }
}

function withValueAt(payload: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(payload) as Record<string | number, unknown>
  let parent = copy
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>
  const last = path.at(-1)!
  if (value === undefined) delete parent[last]
  else parent[last] = value
  return copy
}

const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) })

describe('encodeFittingEvent: the one validating walk', () => {
  it('writes the two-step bytes for generated conversations: unknown fields, failed rooms, long histories', () => {
    const events = [
      ...generateConversations({ count: 60, seed: 21, unknownFieldRate: 0.5 }),
      ...generateConversations({ count: 3, seed: 22, historyItems: 600 }),
      ...generateConversations({ count: 20, seed: 23, failedRoomRate: 1 }),
    ]
    for (const event of events) expectSameBytes(event)
  })

  it('writes the two-step bytes for every hand-made fixture (every item kind)', () => {
    for (const [name, fixture] of Object.entries(loadAllFixtures())) {
      expect(name).toBeTruthy()
      expectSameBytes(fixture)
    }
  })

  it('writes nulls, missing optionals, unicode, big numbers, empty and unknown parts as the two steps do', () => {
    const texts = ['', 'a'.repeat(256), 'a'.repeat(257), '€'.repeat(22), '😀'.repeat(10), 'ü'.repeat(5000)]
    for (const [index, text] of texts.entries()) {
      const payload = {
        event: 'ConversationComplete',
        top_level_unknown: [text, { nested: null }],
        source: 'a payload field of our name is carried, not taken',
        extra_fields_json: 'and so is this one',
        data: {
          session_id: sessionId.toUpperCase(),
          agent_id: null,
          agent_name: text,
          created_at: '2026-11-23T10:00:00.123456+02:00',
          duration_seconds: [0, -0, -0.5, 1e300, Number.MAX_SAFE_INTEGER, 5e-324][index],
          url_parameters: { [text]: text, plain: 'v', ключ: 'значение', __proto__x: '' },
          test_eval_result: { success: false, reasons: [], completion_reason: null, why: { text } },
          room_metadata: {},
          history: [
            {},
            { role: 'user', content: text, metrics: {}, tools_added: [] },
            { kind: 'function_call', tools_added: [text, ''], interrupted: true, unknown: text },
            { metrics: { e2e_latency: 1e-9, started_speaking_at: null, extra: [1, 2] } },
            { kind: 'brand_new_kind', transcript_confidence: -1e300, tool_is_error: false },
          ],
          brand_new_field: deep(maxUnknownFieldDepth),
        },
      }
      expectSameBytes(payload)
      expectSameBytes(payload, { source: null, receivedAt: null })
      expectSameBytes(payload, { source: text, receivedAt: -(2 ** 40) })
    }
    expectSameBytes({ event: 'ConversationComplete', data: { session_id: sessionId } })
    expectSameBytes({ event: 'ConversationComplete', data: { session_id: sessionId, history: null } })
  })

  it('takes exactly the payloads validateToAvro takes, and reports its problems, on every field made to misfit', () => {
    const fixtures = loadAllFixtures()
    const misfits: unknown[] = [
      null,
      undefined,
      7,
      'not-a-uuid',
      '2026-13-45T99:00:00Z',
      true,
      {},
      [],
      [null],
      Number.NaN,
      deep(maxUnknownFieldDepth + 1),
    ]
    let taken = 0
    let refused = 0
    for (const payload of [fixtures.full, fixtures['unknown-fields'], fixtures['tool-calls']])
      for (const path of paths(payload))
        for (const misfit of misfits) {
          const changed = withValueAt(payload, path, misfit)
          const expected = validateToAvro(changed).problems
          const { problems, value } = validateAndEncode(changed, ingest)
          expect(problems).toEqual(expected)
          if (expected.length === 0) {
            taken++
            expect(value!.subarray(wireHeaderBytes).equals(twoStepBytes(changed))).toBe(true)
            expect(encodeFittingEvent(changed, ingest)).toBeDefined()
          } else {
            refused++
            expect(value).toBeUndefined()
          }
        }
    // Both outcomes were exercised, many times each.
    expect(taken).toBeGreaterThan(100)
    expect(refused).toBeGreaterThan(100)
  }, 60_000)

  it('refuses what is not a record at all, as the validation does', () => {
    for (const payload of [
      null,
      [],
      'x',
      { event: 'ConversationComplete' },
      { data: { session_id: sessionId } },
    ])
      expect(validateAndEncode(payload, ingest)).toEqual({ problems: validateToAvro(payload).problems })
  })

  it('leaves the wire header to be written and returns a message of its own each time', () => {
    const [first, second] = generateConversations({ count: 2, seed: 24 })
    const a = encodeFittingEvent(first, ingest)!
    const b = encodeFittingEvent(second, ingest)!
    expect(a.subarray(wireHeaderBytes)).toEqual(twoStepBytes(first))
    expect(b.subarray(wireHeaderBytes)).toEqual(twoStepBytes(second))
    expect(a.buffer === b.buffer && a.byteOffset === b.byteOffset).toBe(false)
  })
})
