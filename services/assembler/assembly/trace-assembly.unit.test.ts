import { describe, expect, it } from 'vitest'
import type { OtlpSpan } from '../../../core/otlp/otlp-spans.ts'
import { spansMessage, testSpan } from '../../../test/support/otlp-test-spans.ts'
import { defaultAssemblySettings } from './assembly-settings.ts'
import { spanBytes } from './span-bytes.ts'
import { TraceAssembly } from './trace-assembly.ts'

const span = testSpan
const message = spansMessage
const settings = { ...defaultAssemblySettings, rootGraceMs: 100, idleMs: 1_000, lateWindowMs: 5_000 }
const make = (overrides = {}) => new TraceAssembly({ ...settings, ...overrides }, (s) => s.name === 'root')

describe('TraceAssembly', () => {
  it('emits a trace rootGraceMs after its root arrived, then commits past it', () => {
    const assembly = make()
    assembly.add('p0', 10n, message('t1', span('a')), 0)
    assembly.add('p0', 11n, message('t1', span('r', 'root')), 50)
    expect(assembly.due(149)).toEqual([])
    expect(assembly.commits()).toEqual(new Map([['p0', 10n]]))
    const [emission] = assembly.due(150)
    expect(emission).toMatchObject({ traceId: 't1', reason: 'root', offsets: [10n, 11n], rootArrivedMs: 50 })
    expect(emission!.input.spans.map((s) => s.span_id)).toEqual(['a', 'r'])
    expect(assembly.due(200)).toEqual([]) // being emitted
    expect(assembly.commits().get('p0')).toBe(10n) // not before the acknowledgement
    assembly.emitted(emission!, 160)
    expect(assembly.commits()).toEqual(new Map([['p0', 12n]]))
  })

  it('never commits past the first offset of a trace not emitted, whatever came after', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('slow', span('a')), 0)
    assembly.add('p0', 1n, message('fast', span('r', 'root')), 0)
    const [fast] = assembly.due(100)
    assembly.emitted(fast!, 100)
    expect(assembly.commits().get('p0')).toBe(0n)
    assembly.committed('p0', 0n)
    expect(assembly.commits().size).toBe(0) // nothing moved
  })

  it('emits a trace without root after the idle time, incomplete', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('t', span('a')), 0)
    assembly.add('p0', 1n, message('t', span('b')), 500)
    expect(assembly.due(1_499)).toEqual([])
    expect(assembly.due(1_500)[0]).toMatchObject({ reason: 'idle', rootArrivedMs: null })
  })

  it('a late span within the window reopens the trace: a newer, whole delivery', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('t', span('r', 'root')), 0)
    const [first] = assembly.due(100)
    assembly.emitted(first!, 100)
    expect(assembly.add('p0', 1n, message('t', span('late')), 2_000)).toEqual({
      kind: 'added',
      reopened: true,
    })
    expect(assembly.commits().get('p0')).toBe(1n)
    const [second] = assembly.due(2_100)
    expect(second).toMatchObject({ reason: 'late', offsets: [1n] })
    expect(second!.version).toBeGreaterThan(first!.version)
    expect(second!.input.spans.map((s) => s.span_id).sort()).toEqual(['late', 'r'])
  })

  it('a span after the window is late: held for its dead letter, never assembled alone', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('t', span('r', 'root')), 0)
    const [first] = assembly.due(100)
    assembly.emitted(first!, 100)
    assembly.expire(5_100)
    expect(assembly.stats()).toMatchObject({ openTraces: 0, keptTraces: 0, forgottenIds: 1, spans: 0 })
    expect(assembly.add('p0', 1n, message('t', span('x')), 6_000)).toEqual({ kind: 'late', traceId: 't' })
    expect(assembly.due(100_000)).toEqual([])
    expect(assembly.commits().get('p0')).toBe(1n)
    assembly.release('p0', 1n)
    expect(assembly.commits().get('p0')).toBe(2n)
  })

  it('spans arriving while an emission is in flight make another emission', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('t', span('r', 'root')), 0)
    const [first] = assembly.due(100)
    assembly.add('p0', 1n, message('t', span('b')), 110)
    assembly.emitted(first!, 120)
    expect(assembly.commits().get('p0')).toBe(1n)
    expect(assembly.due(300)[0]).toMatchObject({ offsets: [1n] })
  })

  it('a failed emission is retried after the wait, a duplicate message ignored', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('t', span('r', 'root')), 0)
    const [first] = assembly.due(100)
    assembly.failed(first!, 100, 500)
    expect(assembly.due(599)).toEqual([])
    expect(assembly.due(600)).toHaveLength(1)
    expect(assembly.add('p0', 0n, message('t', span('r', 'root')), 700)).toEqual({ kind: 'duplicate' })
  })

  it('over the span cap: kept traces are dropped first, then the oldest open one is emitted early', () => {
    const assembly = make({ maxSpans: 3 })
    assembly.add('p0', 0n, message('kept', span('r', 'root')), 0)
    const [kept] = assembly.due(100)
    assembly.emitted(kept!, 100)
    assembly.add('p0', 1n, message('old', span('a'), span('b')), 200)
    expect(assembly.stats()).toMatchObject({ keptTraces: 1, spans: 3 })
    assembly.add('p0', 2n, message('new', span('c')), 300)
    expect(assembly.stats()).toMatchObject({ keptTraces: 0, forgottenIds: 1, spans: 3 })
    assembly.add('p0', 3n, message('new', span('d')), 300)
    const forced = assembly.due(301)
    expect(forced.map((emission) => [emission.traceId, emission.reason])).toEqual([['old', 'cap']])
  })

  it('over the weight cap: a few heavy spans (long chat contexts) force the oldest open trace out as many light ones would', () => {
    const heavy = (id: string): OtlpSpan => ({
      ...span(id),
      attributes: [
        {
          key: 'lk.pii.chat_ctx',
          string_value: 'x'.repeat(50_000),
          int_value: null,
          double_value: null,
          bool_value: null,
          json_value: null,
        },
      ],
    })
    const weight = spanBytes(heavy('w'))
    expect(weight).toBeGreaterThan(100_000) // two bytes a character, beside the key and the objects
    const assembly = make({ maxSpanBytes: 2.5 * weight })
    assembly.add('p0', 0n, message('old', heavy('a')), 0)
    assembly.add('p0', 1n, message('new', heavy('b'), heavy('c')), 1)
    expect(assembly.stats()).toMatchObject({ spans: 3, spanBytes: 3 * weight })
    expect(assembly.due(2).map((emission) => [emission.traceId, emission.reason])).toEqual([['old', 'cap']])
    // the same span again (a retried request) weighs once
    assembly.add('p0', 2n, message('new', heavy('b')), 3)
    expect(assembly.stats().spanBytes).toBe(3 * weight)
  })

  it('over the trace cap: the oldest open trace is emitted early', () => {
    const assembly = make({ maxTraces: 2 })
    assembly.add('p0', 0n, message('t1', span('a')), 0)
    assembly.add('p0', 1n, message('t2', span('b')), 1)
    assembly.add('p0', 2n, message('t3', span('c')), 2)
    expect(assembly.due(3).map((emission) => emission.traceId)).toEqual(['t1'])
  })

  it('a partition dropped (revoked) loses its traces; the others keep theirs', () => {
    const assembly = make()
    assembly.add('p0', 0n, message('t0', span('a')), 0)
    assembly.add('p1', 0n, message('t1', span('b')), 0)
    assembly.drop(new Set(['p0']))
    expect(assembly.commits()).toEqual(new Map([['p1', 0n]]))
    expect(assembly.stats()).toMatchObject({ openTraces: 1, spans: 1 })
    // Read again from the committed offset: not a duplicate.
    expect(assembly.add('p0', 0n, message('t0', span('a')), 10)).toEqual({ kind: 'added', reopened: false })
  })
})

describe('TraceAssembly.restore (a partition read afresh)', () => {
  const whole = (trace: string, ...spans: OtlpSpan[]) => ({
    traceId: trace,
    source: 's',
    resourceAttributes: [],
    spans,
  })

  it('a whole restored trace is kept as emitted: a late span reopens it, a newer whole delivery', () => {
    const assembly = make()
    assembly.restore('p0', { whole: [whole('t', span('r', 'root'), span('a'))], idsOnly: [] }, 1_000)
    expect(assembly.stats()).toMatchObject({ openTraces: 0, keptTraces: 1, spans: 2 })
    expect(assembly.due(10_000)).toEqual([]) // not emitted again by the restore
    expect(assembly.commits()).toEqual(new Map()) // nothing read yet: nothing to commit
    expect(assembly.add('p0', 40n, message('t', span('late')), 2_000)).toEqual({
      kind: 'added',
      reopened: true,
    })
    expect(assembly.commits()).toEqual(new Map([['p0', 40n]]))
    const [again] = assembly.due(2_100)
    expect(again).toMatchObject({ traceId: 't', reason: 'late', offsets: [40n] })
    expect(again!.input.spans.map((s) => s.span_id).sort()).toEqual(['a', 'late', 'r'])
    assembly.emitted(again!, 2_200)
    expect(assembly.commits()).toEqual(new Map([['p0', 41n]]))
  })

  it('kept for the late window from the restore, then only its id', () => {
    const assembly = make()
    assembly.restore('p0', { whole: [whole('t', span('r', 'root'))], idsOnly: [] }, 1_000)
    assembly.expire(5_999)
    expect(assembly.stats()).toMatchObject({ keptTraces: 1 })
    assembly.expire(6_000)
    expect(assembly.stats()).toMatchObject({ keptTraces: 0, forgottenIds: 1, spans: 0 })
  })

  it('an id restored alone: a late span of it is dead-lettered, never assembled as a fragment', () => {
    const assembly = make()
    assembly.restore('p0', { whole: [], idsOnly: ['t'] }, 1_000)
    expect(assembly.add('p0', 7n, message('t', span('late')), 2_000)).toEqual({ kind: 'late', traceId: 't' })
    expect(assembly.due(1_000_000)).toEqual([])
    expect(assembly.commits()).toEqual(new Map([['p0', 7n]]))
  })

  it('within the caps: restored traces beyond maxSpans are forgotten oldest first; a dropped partition loses them', () => {
    const assembly = make({ maxSpans: 2 })
    assembly.restore(
      'p0',
      {
        whole: [
          whole('t1', span('r1', 'root')),
          whole('t2', span('r2', 'root')),
          whole('t3', span('r3', 'root')),
        ],
        idsOnly: [],
      },
      1_000,
    )
    expect(assembly.stats()).toMatchObject({ keptTraces: 2, spans: 2, forgottenIds: 1 })
    expect(assembly.add('p0', 0n, message('t1', span('x')), 1_100)).toEqual({ kind: 'late', traceId: 't1' })
    assembly.drop(new Set(['p0']))
    expect(assembly.stats()).toMatchObject({ keptTraces: 0, spans: 0 })
  })
})
