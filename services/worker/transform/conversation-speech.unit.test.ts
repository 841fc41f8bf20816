import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { withImpossibleMetrics } from '../../../test/fixtures/impossible-metrics.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { conversationRows } from './conversation-rows.ts'

// The turn-taking columns of the conversation row, from the interruptions fixture's speaking times
// worked out by hand (a millisecond at a time, the times cut to milliseconds as the transform does).
const delivery = { topic: 't', partition: 0, offset: 1, timestampMs: 0 }
const conversationOf = (event: ReturnType<typeof loadFixture>, deadAirMs?: number) =>
  conversationRows(
    toAvroRecord(event, { source: 'prod', receivedAt: 1 }),
    delivery,
    deadAirMs === undefined ? undefined : { deadAirMs },
  ).conversations[0]!

describe('the turn-taking columns of a conversation', () => {
  it('the interruptions fixture, to the millisecond', () => {
    expect(conversationOf(loadFixture('interruptions'))).toMatchObject({
      dead_air_threshold_ms: 3_000,
      agent_talk_ms: 64_528,
      caller_talk_ms: 23_289,
      talk_ratio: 64_528 / (64_528 + 23_289),
      silence_ms: 13_646,
      dead_air_count: 0,
      longest_silence_ms: 2_343,
      // the caller starts at 09:12:46.815 while the agent speaks until 09:12:47.120, and twice more
      caller_barge_ins: 3,
      barge_ins_yielded: 3,
      agent_cut_ins: 0,
      overlap_ms: 816,
      // agent_joined_at 09:12:41.188, first agent speech 09:12:42.656
      first_word_ms: 1_468,
      response_turns: 7,
      // gaps 760, 2343, 973, 913, 1649, 1264, 1383 ms, each within 500 ms of its e2e_latency
      response_gap_p50_ms: 1_264,
      // sorted 760, 913, 973, 1264, 1383, 1649, 2343: rank 6 × 0.95 = 5.7, between 1649 and 2343
      response_gap_p95_ms: 1_649 + (2_343 - 1_649) * (6 * 0.95 - 5),
      gap_e2e_disagreements: 0,
      speech_left_out: 0,
    })
  })

  it('counts dead air against the threshold it stores: six silences over 1 s, one over 2 s', () => {
    const event = loadFixture('interruptions')
    expect(conversationOf(event, 1_000)).toMatchObject({ dead_air_threshold_ms: 1_000, dead_air_count: 6 })
    expect(conversationOf(event, 2_000)).toMatchObject({ dead_air_threshold_ms: 2_000, dead_air_count: 1 })
  })

  it('is NULL, not 0, for a conversation without speaking times', () => {
    const event = loadFixture('interruptions')
    for (const item of event.data.history ?? []) {
      if (item.metrics) {
        delete item.metrics.started_speaking_at
        delete item.metrics.stopped_speaking_at
      }
    }
    const row = conversationOf(event)
    expect(row).toMatchObject({
      agent_talk_ms: null,
      caller_talk_ms: null,
      talk_ratio: null,
      silence_ms: null,
    })
    expect([row.caller_barge_ins, row.first_word_ms, row.response_gap_p50_ms, row.speech_left_out]).toEqual([
      null,
      null,
      null,
      0,
    ])
  })

  it('leaves out speech the metric flags mark impossible, and counts it', () => {
    // the first caller turn's speech reversed (46.815 <-> 54.596): flagged, left out
    const { event } = withImpossibleMetrics(loadFixture('interruptions'), 'speech')
    expect(conversationOf(event)).toMatchObject({
      speech_left_out: 1,
      agent_talk_ms: 64_528,
      caller_talk_ms: 23_289 - 7_781,
    })
  })
})
