import { describe, expect, it } from 'vitest'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { committedOffsets, partitionOffsets } from '../../core/kafka/kafka-offsets.ts'
import type { OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { traceSessionId } from '../../services/assembler/mapping/session-id.ts'
import { assemblerRig } from '../support/assembler-rig.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { livekitFixtureFile, readOtlpFixture, splitIntoBatches } from '../support/otlp-fixture.ts'
import { waitFor } from '../support/wait-for.ts'

// A late span of a trace that an assembler emitted before it stopped (issue #34, docs/otlp.md
// §10.3): the next assembler restores what it had emitted from the spans topic, so the late span
// makes a newer, whole delivery that replaces the conversation. Before, the late span was gathered
// alone and emitted as an incomplete fragment, whose key time (its own earliest span) differs from
// the whole conversation's: ClickHouse then held two rows for the session.
describe('assembler restarted: a late span of a trace emitted before the restart', () => {
  // A fragment gathered alone would be emitted (incomplete) after 2 s, within the test.
  const rig = assemblerRig('assembler-restart', { ASSEMBLER_IDLE_SECONDS: '2' })
  const { start, publish } = rig
  const livekit = readOtlpFixture(livekitFixtureFile, 'lk')[0]!
  const traceId = 'e'.repeat(8) + livekit.trace_id.slice(8)
  const trace: OtlpSpans = { ...livekit, trace_id: traceId }
  const sessionId = traceSessionId(traceId)

  const rowsOfSession = () =>
    queryRows<Record<string, unknown>>(
      rig.worker.clickhouse,
      `SELECT * FROM ${database}.conversations FINAL WHERE session_id = {s:String}`,
      { s: sessionId },
    )

  it('restores the emitted trace: the late span yields one whole conversation, with the late item', async () => {
    const first = await start()
    await publish(splitIntoBatches(trace, 4, 'agent_session'))
    const [whole] = await waitFor(
      rowsOfSession,
      (rows) => rows.length === 1,
      60_000,
      'the whole conversation',
    )
    expect(whole).toMatchObject({ origin_complete: true, user_turn_count: 3 })
    // Everything published is committed (the emission was acknowledged) before the assembler stops.
    const end = await withKafkaAdmin(rig.worker.kafka, (admin) => partitionOffsets(admin, rig.spansTopic))
    await waitFor(
      () => withKafkaAdmin(rig.worker.kafka, (admin) => committedOffsets(admin, rig.groupId, rig.spansTopic)),
      (committed) => end.every(({ partition, high }) => high === 0n || committed.get(partition) === high),
      30_000,
      'the spans committed',
    )
    await rig.stop(first)

    await start()
    const lastUserTurn = trace.spans.filter((span) => span.name === 'user_turn').at(-1)!
    await publish([
      {
        ...trace,
        spans: [
          {
            ...lastUserTurn,
            span_id: 'bbbbbbbbbbbbbbbb',
            start_time_us: lastUserTurn.start_time_us + 5_000_000,
            end_time_us: lastUserTurn.end_time_us + 5_000_000,
            attributes: lastUserTurn.attributes.map((attribute) =>
              attribute.key === 'lk.pii.user_transcript'
                ? { ...attribute, string_value: 'One more thing.' }
                : attribute,
            ),
          },
        ],
      },
    ])
    // The whole redelivery (4 user turns), or a partial row beside or instead of the whole one.
    const rows = await waitFor(
      rowsOfSession,
      (found) => found.length !== 1 || found[0]!.user_turn_count === 4 || found[0]!.origin_complete === false,
      60_000,
      'the late span delivered',
    )
    expect(rows.map((row) => [row.origin_complete, row.user_turn_count])).toEqual([[true, 4]])
    const items = await queryRows<Record<string, unknown>>(
      rig.worker.clickhouse,
      `SELECT content FROM ${database}.conversation_items FINAL WHERE session_id = {s:String}`,
      { s: sessionId },
    )
    expect(items.some((item) => item.content === 'One more thing.')).toBe(true)
  })
})
