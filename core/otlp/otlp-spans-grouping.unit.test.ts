import { describe, expect, it } from 'vitest'
import { testSpan } from '../../test/support/otlp-test-spans.ts'
import type { DecodedSpan } from './otlp-decoded-request.ts'
import { groupOtlpSpans } from './otlp-spans-grouping.ts'

// One message per trace and resource, in arrival order; bad ids reject their span alone.
const traceA = 'a'.repeat(32)
const traceB = 'b'.repeat(32)
let next = 1
function span(trace_id: string, changes: Partial<DecodedSpan> = {}): DecodedSpan {
  return { trace_id, ...testSpan((next++).toString(16).padStart(16, '0'), 'x'), ...changes }
}
const resource = (name: string) => [
  {
    key: 'service.name',
    string_value: name,
    int_value: null,
    double_value: null,
    bool_value: null,
    json_value: null,
  },
]

describe('grouping decoded spans into messages', () => {
  it('makes one message per trace and resource, keyed by trace id, spans without their trace id', () => {
    const first = span(traceA)
    const grouped = groupOtlpSpans(
      [
        { resource_attributes: resource('one'), spans: [first, span(traceB), span(traceA)] },
        { resource_attributes: resource('two'), spans: [span(traceA)] },
      ],
      'prod',
      1234,
    )
    expect(grouped.rejectedSpans).toBe(0)
    expect(grouped.errorMessage).toBe('')
    expect(
      grouped.messages.map((m) => [m.trace_id, m.resource_attributes[0]!.string_value, m.spans.length]),
    ).toEqual([
      [traceA, 'one', 2],
      [traceB, 'one', 1],
      [traceA, 'two', 1],
    ])
    expect(grouped.messages[0]).toMatchObject({ source: 'prod', received_at: 1234 })
    const { trace_id: _, ...contract } = first
    expect(grouped.messages[0]!.spans[0]).toEqual(contract)
  })

  it('rejects spans with a missing, short, non-hex or all-zero id alone, and says why', () => {
    const grouped = groupOtlpSpans(
      [
        {
          resource_attributes: [],
          spans: [
            span(traceA),
            span(''),
            span('0'.repeat(32)),
            span('abc'),
            span(traceA, { span_id: '' }),
            span(traceA, { span_id: 'z'.repeat(16) }),
            span(traceA, { parent_span_id: '12' }),
          ],
        },
      ],
      'prod',
      1,
    )
    expect(grouped.messages).toHaveLength(1)
    expect(grouped.messages[0]!.spans).toHaveLength(1)
    expect(grouped.rejectedSpans).toBe(6)
    expect(grouped.errorMessage).toBe(
      '3 span(s) rejected: trace id is not 16 bytes (32 hex digits) or is all zero; ' +
        '2 span(s) rejected: span id is not 8 bytes (16 hex digits) or is all zero; ' +
        '1 span(s) rejected: parent span id is not 8 bytes (16 hex digits)',
    )
  })

  it('reads an all-zero parent id as no parent', () => {
    const grouped = groupOtlpSpans(
      [{ resource_attributes: [], spans: [span(traceA, { parent_span_id: '0'.repeat(16) })] }],
      'prod',
      1,
    )
    expect(grouped.messages[0]!.spans[0]!.parent_span_id).toBeNull()
  })
})
