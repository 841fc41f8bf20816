import { describe, expect, it } from 'vitest'
import { validateConversationComplete } from './event-validation.ts'

const sessionId = '0b6c3d5e-8f1a-4b2c-9d3e-4f5a6b7c8d9e'
const event = (data: Record<string, unknown>) => ({
  event: 'ConversationComplete',
  data: { session_id: sessionId, ...data },
})

describe('validateConversationComplete', () => {
  it('accepts the smallest event: only a session id', () => {
    expect(validateConversationComplete(event({}))).toEqual([])
  })
  it('accepts nulls for optional fields, unknown fields and unknown values of open enumerations', () => {
    const problems = validateConversationComplete(
      event({
        agent_id: null,
        status: 'SomethingNew',
        brand_new_field: { a: 1 },
        history: [{ kind: 'NewKind', extra: 1 }],
      }),
    )
    expect(problems).toEqual([])
  })
  it('names the path and problem of every misfit, nested ones included', () => {
    const problems = validateConversationComplete({
      event: 7,
      data: {
        session_id: 'not-a-uuid',
        duration_seconds: '12',
        history: [{ interrupted: 'no', metrics: { e2e_latency: '1.0', started_speaking_at: '10:00' } }, 'x'],
        url_parameters: { a: 'b', n: 1 },
        test_eval_result: { reasons: ['ok', 3] },
        room_metadata: [],
      },
    })
    expect(problems).toEqual([
      { path: 'event', problem: 'expected string, got number' },
      { path: 'data.session_id', problem: 'expected a UUID' },
      { path: 'data.duration_seconds', problem: 'expected number, got string' },
      { path: 'data.history[0].interrupted', problem: 'expected boolean, got string' },
      {
        path: 'data.history[0].metrics.started_speaking_at',
        problem: 'expected an ISO 8601 date-time with a time zone',
      },
      { path: 'data.history[0].metrics.e2e_latency', problem: 'expected number, got string' },
      { path: 'data.history[1]', problem: 'expected object, got string' },
      { path: 'data.url_parameters.n', problem: 'expected string, got number' },
      { path: 'data.test_eval_result.reasons[1]', problem: 'expected string, got number' },
      { path: 'data.room_metadata', problem: 'expected object, got array' },
    ])
  })
  it('bounds the nesting of unknown fields, at any level', () => {
    const deep = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)
    expect(validateConversationComplete(event({ x: deep, ok: [[[1]]], history: [{ y: deep }] }))).toEqual([
      { path: 'data.history[0].y', problem: 'nested deeper than 32 levels' },
      { path: 'data.x', problem: 'nested deeper than 32 levels' },
    ])
  })
  it('refuses timestamps ClickHouse cannot store, with the reason (storable-timestamp.ts)', () => {
    expect(
      validateConversationComplete(
        event({
          start_time: '2026-02-31T10:00:00Z',
          created_at: '2016-12-31T23:59:60Z',
          agent_joined_at: '1899-12-31T23:59:59Z',
          history: [{ created_at: '2026-03-01T10:00:00.1234567890Z' }],
        }),
      ),
    ).toEqual([
      { path: 'data.created_at', problem: 'leap second (:60) cannot be stored' },
      { path: 'data.start_time', problem: 'no such date: 2026-02-31' },
      {
        path: 'data.agent_joined_at',
        problem: 'outside 1900..2299 (UTC), the range ClickHouse DateTime64 holds',
      },
      { path: 'data.history[0].created_at', problem: 'more than 9 fraction digits' },
    ])
  })
  it('requires event and data', () => {
    expect(validateConversationComplete({})).toEqual([
      { path: 'event', problem: 'required' },
      { path: 'data', problem: 'required' },
    ])
  })
})
