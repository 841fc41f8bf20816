import { BlockWriter, type NativeType } from '../services/core/clickhouse-native-format.ts'
import type { HistoryItem } from '../services/core/event/conversation-complete.types.ts'
import type { AvroRecord } from '../services/core/event/event-record.ts'
import { extraFieldsField } from '../services/core/event/event-schema.ts'
import { finiteNumber, timestampMs } from '../services/worker/clickhouse-values.ts'
import { conversationKeyTime } from '../services/worker/conversation-key-time.ts'
import { percentileOfSorted as percentile } from '../services/worker/latency-percentiles.ts'
import { conversationSpan, type ItemMetrics, metricFlags } from '../services/worker/metric-quality.ts'
import { tableNativeColumns } from '../services/worker/table-rows.ts'
import { pairToolCalls } from '../services/worker/tool-call-pairing.ts'

// PROTOTYPE for bench/native-direct-ab.ts only, not the worker's code (#12, nativedirect): a
// conversation's conversation_items written straight into Native column bytes while the record is
// transformed — no item row objects — and a write's messages joined column by column. Columns and
// wire types come from table-rows.ts; the transform is conversation-rows.ts's item loop, reduced to
// what the items table and its flags need (no rows for the other tables are built here, which
// favours this side of the A/B). The bench checks that the joined block is byte for byte the
// worker's tableBlock('conversation_items', …) before it measures.

/** One growing byte stream of a column (a null map, values, array offsets or array elements). */
class Stream extends BlockWriter {
  constructor() {
    super(1 << 16)
  }

  uint32(value: number): void {
    this.reserve(4)
    this.view.setUint32(this.position, value, true)
    this.position += 4
  }

  float64(value: number): void {
    this.reserve(8)
    this.view.setFloat64(this.position, value, true)
    this.position += 8
  }
}

// One class per wire type, so that each call site sees one shape.
class StringColumn {
  values = new Stream()
  put(value: string): void {
    this.values.string(value)
  }
}
class NullableStringColumn {
  nulls = new Stream()
  values = new Stream()
  put(value: string | null): void {
    this.nulls.uint8(value === null ? 1 : 0)
    if (value === null) this.values.uint8(0)
    else this.values.string(value)
  }
}
class Int64Column {
  values = new Stream()
  put(value: number): void {
    this.values.int64(value)
  }
}
class NullableInt64Column {
  nulls = new Stream()
  values = new Stream()
  put(value: number | null): void {
    this.nulls.uint8(value === null ? 1 : 0)
    this.values.int64(value ?? 0)
  }
}
class UInt32Column {
  values = new Stream()
  put(value: number): void {
    this.values.uint32(value)
  }
}
class UInt8Column {
  values = new Stream()
  put(value: number): void {
    this.values.uint8(value)
  }
}
class NullableFloat64Column {
  nulls = new Stream()
  values = new Stream()
  put(value: number | null): void {
    this.nulls.uint8(value === null ? 1 : 0)
    this.values.float64(value ?? 0)
  }
}
class NullableBoolColumn {
  nulls = new Stream()
  values = new Stream()
  put(value: boolean | null): void {
    this.nulls.uint8(value === null ? 1 : 0)
    this.values.uint8(value === true ? 1 : 0)
  }
}
class StringArrayColumn {
  offsets = new Stream()
  values = new Stream()
  end = 0
  put(value: readonly string[]): void {
    this.end += value.length
    this.offsets.int64(this.end)
    for (const element of value) this.values.string(element)
  }
}

type ColumnWriter =
  | StringColumn
  | NullableStringColumn
  | Int64Column
  | NullableInt64Column
  | UInt32Column
  | UInt8Column
  | NullableFloat64Column
  | NullableBoolColumn
  | StringArrayColumn

function columnWriter(type: NativeType): ColumnWriter {
  switch (type) {
    case 'String':
      return new StringColumn()
    case 'Nullable(String)':
      return new NullableStringColumn()
    case "DateTime64(3, 'UTC')":
    case 'UInt64':
      return new Int64Column()
    case "Nullable(DateTime64(3, 'UTC'))":
      return new NullableInt64Column()
    case 'UInt32':
      return new UInt32Column()
    case 'UInt8':
      return new UInt8Column()
    case 'Nullable(Float64)':
      return new NullableFloat64Column()
    case 'Nullable(Bool)':
      return new NullableBoolColumn()
    case 'Array(String)':
      return new StringArrayColumn()
    default:
      throw new Error(`prototype: no writer for ${type}`)
  }
}

const columns = tableNativeColumns.conversation_items
const writers = Object.fromEntries(columns.map(({ name, type }) => [name, columnWriter(type)]))
const streamsOf = (writer: ColumnWriter): Stream[] =>
  'nulls' in writer
    ? [writer.nulls, writer.values]
    : 'offsets' in writer
      ? [writer.offsets, writer.values]
      : [writer.values]
const columnStreams = columns.map(({ name }) => streamsOf(writers[name]!))
const allStreams = columnStreams.flat()
const offsetStreams = new Set(
  columns.flatMap(({ name }) => {
    const writer = writers[name]!
    return 'offsets' in writer ? [allStreams.indexOf(writer.offsets)] : []
  }),
)
// Typed views of the writers the item loop calls.
const w = writers as unknown as {
  [Name in 'session_id' | 'agent_id' | 'source' | 'active_agent_id']: StringColumn
} & {
  [Name in
    | 'agent_name'
    | 'campaign_id'
    | 'test_run_id'
    | 'role'
    | 'content'
    | 'kind'
    | 'id'
    | 'tool_name'
    | 'tool_call_id'
    | 'tool_arguments_json'
    | 'tool_output'
    | 'handoff_to_agent_id'
    | 'instructions'
    | 'extra_fields_json'
    | 'metrics_extra_fields_json']: NullableStringColumn
} & { event_time: Int64Column; version: Int64Column; is_deleted: UInt8Column; item_index: UInt32Column } & {
  [Name in 'start_time' | 'created_at' | 'started_speaking_at' | 'stopped_speaking_at']: NullableInt64Column
} & {
  [Name in
    | 'transcript_confidence'
    | 'transcription_delay'
    | 'end_of_turn_delay'
    | 'on_user_turn_completed_delay'
    | 'llm_node_ttft'
    | 'tts_node_ttfb'
    | 'e2e_latency']: NullableFloat64Column
} & { interrupted: NullableBoolColumn; tool_is_error: NullableBoolColumn } & {
  tools_added: StringArrayColumn
  metric_flags: StringArrayColumn
}

/** One message's items: every stream's bytes in one buffer, and where each stream ends. */
export interface ItemsFragment {
  bytes: Buffer
  ends: Int32Array
  rows: number
}

function finish(rows: number): ItemsFragment {
  let total = 0
  for (const stream of allStreams) total += stream.position
  const bytes = Buffer.allocUnsafe(total)
  const ends = new Int32Array(allStreams.length)
  let at = 0
  allStreams.forEach((stream, index) => {
    stream.bytes.copy(bytes, at, 0, stream.position)
    at += stream.position
    ends[index] = at
    stream.position = 0
  })
  w.tools_added.end = 0
  w.metric_flags.end = 0
  return { bytes, ends, rows }
}

const columnHeaders = columns.map(({ name, type }) => {
  const header = new Stream()
  header.string(name)
  header.string(type)
  return Buffer.from(header.bytes.subarray(0, header.position))
})

/** A write's items block: the messages' fragments joined stream by stream, array offsets moved on. */
export function joinItems(fragments: readonly ItemsFragment[]): Buffer {
  let rows = 0
  let total = 20
  for (const header of columnHeaders) total += header.length
  for (const fragment of fragments) {
    rows += fragment.rows
    total += fragment.bytes.length
  }
  const out = new Stream()
  out.reserve(total)
  out.varUInt(columns.length)
  out.varUInt(rows)
  let stream = 0
  columnStreams.forEach((streams, column) => {
    columnHeaders[column]!.copy(out.bytes, out.position)
    out.position += columnHeaders[column]!.length
    for (let part = 0; part < streams.length; part++, stream++) {
      let base = 0
      for (const fragment of fragments) {
        const from = stream === 0 ? 0 : fragment.ends[stream - 1]!
        const to = fragment.ends[stream]!
        fragment.bytes.copy(out.bytes, out.position, from, to)
        if (offsetStreams.has(stream)) {
          let last = 0
          for (let at = out.position; at < out.position + (to - from); at += 8) {
            last = out.view.getUint32(at, true)
            out.view.setUint32(at, last + base, true)
          }
          base += last
        }
        out.position += to - from
      }
    }
  })
  return out.bytes.subarray(0, out.position)
}

const noToolsAdded = Object.freeze([]) as unknown as string[]
const isMessage = (item: HistoryItem) => item.kind == null || /^message$/i.test(item.kind)
const isRole = (item: HistoryItem, pattern: RegExp) => item.role != null && pattern.test(item.role)
const extraJson = (object: object | null | undefined): string | null => {
  const extra = (object as Record<string, unknown> | null | undefined)?.[extraFieldsField]
  return typeof extra === 'string' ? extra : null
}

/** `write: false`: the same transform without the bytes (what the writes themselves cost). */
export function directItems(record: AvroRecord, versionFallback: number, write = true): ItemsFragment {
  // biome-ignore lint/suspicious/noExplicitAny: a prototype reads the decoded record as the transform does
  const envelope = record as any
  const data = envelope.data
  const history: HistoryItem[] = data.history ?? []
  const count = history.length
  const receivedAt = typeof envelope.received_at === 'number' ? envelope.received_at : null
  const createdAt = timestampMs(data.created_at, 'data.created_at')
  const startTime = timestampMs(data.start_time, 'data.start_time')
  const agentJoinedAt = timestampMs(data.agent_joined_at, 'data.agent_joined_at')
  // What the flags and percentiles read of each item (short-lived, ~10 fields).
  const metrics: Array<ItemMetrics & { created_at: number | null }> = new Array(count)
  let earliest: number | null = null
  for (let index = 0; index < count; index++) {
    const item = history[index]!
    const itemMetrics = item.metrics
    const created = timestampMs(item.created_at, 'created_at', index)
    const started = timestampMs(itemMetrics?.started_speaking_at, 'metrics.started_speaking_at', index)
    const stopped = timestampMs(itemMetrics?.stopped_speaking_at, 'metrics.stopped_speaking_at', index)
    for (const ms of [created, started, stopped])
      if (ms !== null && (earliest === null || ms < earliest)) earliest = ms
    metrics[index] = {
      role: item.role ?? null,
      kind: item.kind ?? null,
      created_at: created,
      started_speaking_at: started,
      stopped_speaking_at: stopped,
      transcription_delay: finiteNumber(
        itemMetrics?.transcription_delay,
        'metrics.transcription_delay',
        index,
      ),
      end_of_turn_delay: finiteNumber(itemMetrics?.end_of_turn_delay, 'metrics.end_of_turn_delay', index),
      on_user_turn_completed_delay: finiteNumber(
        itemMetrics?.on_user_turn_completed_delay,
        'metrics.on_user_turn_completed_delay',
        index,
      ),
      llm_node_ttft: finiteNumber(itemMetrics?.llm_node_ttft, 'metrics.llm_node_ttft', index),
      tts_node_ttfb: finiteNumber(itemMetrics?.tts_node_ttfb, 'metrics.tts_node_ttfb', index),
      e2e_latency: finiteNumber(itemMetrics?.e2e_latency, 'metrics.e2e_latency', index),
    }
  }
  const eventTime = conversationKeyTime({ startTime, createdAt, others: [agentJoinedAt, earliest] }).ms
  const agentId: string = data.agent_id ?? ''
  const version = receivedAt ?? versionFallback
  let activeAgent = agentId
  let turns = 0
  for (let index = 0; index < count; index++) {
    const item = history[index]!
    const itemMetrics = item.metrics
    const known = metrics[index]!
    if (isMessage(item) && (isRole(item, /^user$/i) || isRole(item, /^(assistant|agent)$/i))) turns++
    const confidence = finiteNumber(item.transcript_confidence, 'transcript_confidence', index)
    if (write) {
      w.session_id.put(data.session_id)
      w.event_time.put(eventTime)
      w.agent_id.put(agentId)
      w.agent_name.put(data.agent_name ?? null)
      w.source.put(envelope.source ?? '')
      w.version.put(version)
      w.is_deleted.put(0)
      w.item_index.put(index)
      w.campaign_id.put(data.campaign_id ?? null)
      w.test_run_id.put(data.test_run_id ?? null)
      w.start_time.put(startTime)
      w.active_agent_id.put(activeAgent)
      w.role.put(known.role)
      w.content.put(item.content ?? null)
      w.kind.put(known.kind)
      w.id.put(item.id ?? null)
      w.created_at.put(known.created_at)
      w.interrupted.put(item.interrupted ?? null)
      w.transcript_confidence.put(confidence)
      w.started_speaking_at.put(known.started_speaking_at)
      w.stopped_speaking_at.put(known.stopped_speaking_at)
      w.transcription_delay.put(known.transcription_delay)
      w.end_of_turn_delay.put(known.end_of_turn_delay)
      w.on_user_turn_completed_delay.put(known.on_user_turn_completed_delay)
      w.llm_node_ttft.put(known.llm_node_ttft)
      w.tts_node_ttfb.put(known.tts_node_ttfb)
      w.e2e_latency.put(known.e2e_latency)
      w.tool_name.put(item.tool_name ?? null)
      w.tool_call_id.put(item.tool_call_id ?? null)
      w.tool_arguments_json.put(item.tool_arguments_json ?? null)
      w.tool_output.put(item.tool_output ?? null)
      w.tool_is_error.put(item.tool_is_error ?? null)
      w.handoff_to_agent_id.put(item.handoff_to_agent_id ?? null)
      w.instructions.put(item.instructions ?? null)
      w.tools_added.put(item.tools_added ?? noToolsAdded)
      w.extra_fields_json.put(extraJson(item))
      w.metrics_extra_fields_json.put(extraJson(itemMetrics))
    }
    if (item.handoff_to_agent_id != null) activeAgent = item.handoff_to_agent_id
  }
  const durationSeconds = finiteNumber(data.duration_seconds, 'data.duration_seconds')
  const flags = metricFlags(metrics, conversationSpan(startTime, createdAt, durationSeconds))
  if (write) for (const itemFlags of flags) w.metric_flags.put(itemFlags)
  // The conversation row's figures the transform also derives from the items (kept out of the bytes).
  const e2e = metrics.flatMap((item) => (item.e2e_latency === null ? [] : [item.e2e_latency]))
  e2e.sort((a, b) => a - b)
  void [percentile(e2e, 0.5), pairToolCalls(history).length, turns]
  return finish(write ? count : 0)
}
