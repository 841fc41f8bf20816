import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { asDecoded } from '../../test/support/as-decoded.ts'
import { fromAvroRecord, toAvroRecord } from './event-record.ts'
import { eventAvroSchema } from './event-schema.ts'
import { validateToAvro } from './event-validation.ts'

const type = avro.Type.forSchema(eventAvroSchema as avro.Schema)
const ingest = { source: 'prod', receivedAt: 1_764_000_000_123 }

describe('Avro record mapping', () => {
  it('round-trips generated conversations through Avro bytes, unknown fields included', () => {
    for (const event of generateConversations({ count: 50, seed: 3, unknownFieldRate: 1 })) {
      const record = toAvroRecord(event, ingest)
      expect(type.isValid(record)).toBe(true)
      const decoded = fromAvroRecord(type.fromBuffer(type.toBuffer(record)) as Record<string, unknown>)
      expect(decoded).toEqual({ event: asDecoded(event), ingest })
    }
  })
  it('carries unknown fields of each record as JSON text beside the known ones', () => {
    const record = toAvroRecord(
      {
        event: 'ConversationComplete',
        top: 1,
        data: {
          session_id: 's',
          new_field: [1, 2],
          history: [{ role: 'User', mood: 'ok', metrics: { x: 1 } }],
        },
      },
      ingest,
    )
    expect(record.extra_fields_json).toBe('{"top":1}')
    const data = record.data as Record<string, unknown>
    expect(data.extra_fields_json).toBe('{"new_field":[1,2]}')
    const [item] = data.history as Array<Record<string, unknown>>
    expect(item!.extra_fields_json).toBe('{"mood":"ok"}')
    expect((item!.metrics as Record<string, unknown>).extra_fields_json).toBe('{"x":1}')
    expect(data.agent_id).toBeNull()
  })
  it('keeps a carried __proto__ key a plain key when decoding', () => {
    const record = toAvroRecord({ event: 'ConversationComplete', data: { session_id: 's' } }, ingest)
    record.extra_fields_json = '{"__proto__":{"polluted":true}}'
    const { event } = fromAvroRecord(record)
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype)
    expect(Object.keys(event)).toContain('__proto__')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
  it('builds the record in the validation walk, sharing arrays and maps of scalars instead of copying them', () => {
    const event = {
      event: 'ConversationComplete',
      data: { session_id: 's', history: [{ role: 'User', mood: 'ok' }] },
      extra: { nested: [1] },
    }
    const { problems, record } = validateToAvro(event)
    expect(record).toEqual({
      ...toAvroRecord(event, ingest),
      source: undefined,
      received_at: undefined,
      origin: undefined,
    })
    expect(problems).toEqual(validateToAvro(event).problems)
    // Scalars need no mapping: the record holds the very arrays and maps of the parsed body.
    const shared = {
      event: 'ConversationComplete',
      data: {
        session_id: 's',
        url_parameters: { a: 'b' },
        history: [{ role: 'User', tools_added: ['search'] }],
      },
    }
    const data = validateToAvro(shared).record.data as Record<string, unknown>
    expect(data.url_parameters).toBe(shared.data.url_parameters)
    const history = data.history as Array<Record<string, unknown>>
    expect(history[0]!.tools_added).toBe(shared.data.history[0]!.tools_added)
    expect(history[0]).not.toBe(shared.data.history[0])
  })
})
