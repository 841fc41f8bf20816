import { describe, expect, it } from 'vitest'
import type { OtlpSpan, OtlpSpans } from '../../../core/otlp/otlp-spans.ts'
import { spansMessage, testSpan } from '../../../test/support/otlp-test-spans.ts'
import { defaultAssemblySettings } from './assembly-settings.ts'
import { planRestore, type ReplayedMessage, replayStartMs, traceGapMs } from './restore-plan.ts'

const span = testSpan
const message = spansMessage
// idle 1 s + late window 5 s: a trace is whole when its first replayed message is 6 s after the start.
const settings = { ...defaultAssemblySettings, idleMs: 1_000, lateWindowMs: 5_000, restoreMs: 20_000 }
const isRoot = (s: OtlpSpan) => s.name === 'root'
let offset = 0n
const at = (timestampMs: number, spans: OtlpSpans | null, key?: string): ReplayedMessage => ({
  offset: offset++,
  timestampMs,
  key: key ?? spans?.trace_id ?? null,
  message: spans,
})

describe('planRestore', () => {
  it('reads back restoreMs from the last committed message; two messages of a trace are one within idle + late window', () => {
    expect(replayStartMs(100_000, settings)).toBe(80_000)
    expect(traceGapMs(settings)).toBe(6_000)
  })

  it('a trace with its root, all of it late enough in the replay, is restored whole with every span once', () => {
    const restored = planRestore(
      [at(6_000, message('t', span('a'), span('b'))), at(7_000, message('t', span('b'), span('r', 'root')))],
      0,
      settings,
      isRoot,
    )
    expect(restored.idsOnly).toEqual([])
    expect(restored.whole).toHaveLength(1)
    expect(restored.whole[0]).toMatchObject({ traceId: 't', source: 's' })
    expect(restored.whole[0]!.spans.map((s) => s.span_id)).toEqual(['a', 'b', 'r'])
  })

  it('a trace whose first replayed message may have earlier ones before the replay is an id only', () => {
    const restored = planRestore(
      [at(5_999, message('early', span('a'))), at(9_000, message('early', span('r', 'root')))],
      0,
      settings,
      isRoot,
    )
    expect(restored).toEqual({ whole: [], idsOnly: ['early'] })
  })

  it('a rootless trace (a crashed agent, or a late fragment dead-lettered) is an id only', () => {
    expect(planRestore([at(10_000, message('frag', span('a')))], 0, settings, isRoot)).toEqual({
      whole: [],
      idsOnly: ['frag'],
    })
  })

  it('a message that does not decode: its key is remembered, its trace not restored whole', () => {
    const restored = planRestore(
      [
        at(8_000, message('t', span('r', 'root'))),
        at(8_500, null, 't'),
        at(8_600, null, 'u'),
        at(8_700, null),
      ],
      0,
      settings,
      isRoot,
    )
    expect(restored).toEqual({ whole: [], idsOnly: ['t', 'u'] })
  })
})
