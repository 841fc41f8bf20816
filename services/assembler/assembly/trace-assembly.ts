import type { OtlpSpan, OtlpSpans } from '../../../core/otlp/otlp-spans.ts'
import type { TraceInput } from '../mapping/trace-view.ts'
import type { AssemblySettings } from './assembly-settings.ts'
import type { RestoredTraces } from './restore-plan.ts'
import { spanBytes } from './span-bytes.ts'

// The assembler's decisions, without I/O or a clock of its own (the caller passes `now`): which
// spans belong to which trace, when a trace is emitted, which offset of each partition may be
// committed, what a late span does, and what goes when memory is full.
// - A trace is gathered from the messages of its key (the trace id, so one partition).
// - Emitted: `rootGraceMs` after its root span arrived, or after `idleMs` without a new span (then
//   incomplete), or early when the caps are reached (the oldest first).
// - A partition's commit offset never passes the first message of a trace not yet emitted (nor one
//   being dead-lettered): a restart reads it again, and its emission again replaces the earlier one.
// - After emission the trace's spans stay `lateWindowMs`: a span arriving then reopens it, and it is
//   emitted again, whole, with a newer version. After that only its id is remembered: a later span is
//   dead-lettered (`late`), never assembled alone into a conversation that would replace the whole.
// - A partition read afresh (a start, a rebalance) gets back what was emitted before its committed
//   offset (restore(), planned by restore-plan.ts): as if this process had emitted it just now.
export type EmitReason = 'root' | 'idle' | 'cap' | 'late'

export interface Emission {
  traceId: string
  input: TraceInput
  reason: EmitReason
  /** The received_at of the delivery: above every earlier delivery of the trace. */
  version: number
  /** When its root span arrived (ms), for the emit latency; null without one. */
  rootArrivedMs: number | null
  /** The offsets this emission covers (released once it is acknowledged). */
  offsets: readonly bigint[]
}

export type AddOutcome =
  | { kind: 'added'; reopened: boolean }
  | { kind: 'duplicate' }
  /** A span of a trace emitted and forgotten: the caller dead-letters the message, then release()s it. */
  | { kind: 'late'; traceId: string }

interface Trace {
  traceId: string
  partition: string
  source: string
  resourceAttributes: OtlpSpans['resource_attributes']
  spans: Map<string, OtlpSpan>
  /** What its spans weigh (span-bytes.ts). */
  bytes: number
  /** Offsets of messages whose spans no acknowledged emission covers yet. */
  pending: bigint[]
  firstArrivedMs: number
  lastArrivedMs: number
  rootArrivedMs: number | null
  /** Set once an emission was acknowledged: the trace is kept for late spans from then. */
  emittedMs: number | null
  emitting: boolean
  lastVersion: number
  /** Not before this (a failed emission waits). */
  retryAfterMs: number
  forced: boolean
}

interface PartitionState {
  /** The offset after the highest one seen. */
  next: bigint
  /** Offsets held outside traces (dead letters in flight). */
  held: Set<bigint>
  committed: bigint | null
}

export class TraceAssembly {
  private readonly traces = new Map<string, Trace>()
  private readonly partitions = new Map<string, PartitionState>()
  /** Ids of emitted traces whose spans are gone; insertion order = age. */
  private readonly forgotten = new Set<string>()
  private spanCount = 0
  private bytesHeld = 0

  private readonly settings: AssemblySettings
  private readonly isRoot: (span: OtlpSpan) => boolean

  constructor(settings: AssemblySettings, isRoot: (span: OtlpSpan) => boolean) {
    this.settings = settings
    this.isRoot = isRoot
  }

  add(partition: string, offset: bigint, message: OtlpSpans, nowMs: number): AddOutcome {
    const state = this.partitionState(partition)
    if (offset < state.next) return { kind: 'duplicate' } // read again (a fetch repeated)
    state.next = offset + 1n
    let trace = this.traces.get(message.trace_id)
    if (!trace && this.forgotten.has(message.trace_id)) {
      state.held.add(offset)
      return { kind: 'late', traceId: message.trace_id }
    }
    const reopened = trace?.emittedMs != null && !trace.emitting && trace.pending.length === 0
    if (!trace) {
      trace = {
        traceId: message.trace_id,
        partition,
        source: message.source,
        resourceAttributes: message.resource_attributes,
        spans: new Map(),
        bytes: 0,
        pending: [],
        firstArrivedMs: nowMs,
        lastArrivedMs: nowMs,
        rootArrivedMs: null,
        emittedMs: null,
        emitting: false,
        lastVersion: 0,
        retryAfterMs: 0,
        forced: false,
      }
      this.traces.set(trace.traceId, trace)
    }
    trace.pending.push(offset)
    trace.lastArrivedMs = nowMs
    for (const span of message.spans) {
      const earlier = trace.spans.get(span.span_id)
      if (!earlier) this.spanCount++
      const weight = spanBytes(span) - (earlier ? spanBytes(earlier) : 0)
      trace.bytes += weight
      this.bytesHeld += weight
      trace.spans.set(span.span_id, span)
      if (trace.rootArrivedMs === null && this.isRoot(span)) trace.rootArrivedMs = nowMs
    }
    this.enforceCaps()
    return { kind: 'added', reopened }
  }

  /** The traces to emit now, marked as being emitted. */
  due(nowMs: number): Emission[] {
    const { rootGraceMs, idleMs } = this.settings
    const emissions: Emission[] = []
    for (const trace of this.traces.values()) {
      if (trace.emitting || trace.pending.length === 0 || nowMs < trace.retryAfterMs) continue
      let reason: EmitReason | null = null
      if (trace.forced) reason = 'cap'
      else if (trace.emittedMs !== null && nowMs >= trace.lastArrivedMs + rootGraceMs) reason = 'late'
      else if (trace.rootArrivedMs !== null && nowMs >= trace.rootArrivedMs + rootGraceMs) reason = 'root'
      else if (nowMs >= trace.lastArrivedMs + idleMs) reason = 'idle'
      if (reason === null) continue
      trace.emitting = true
      trace.lastVersion = Math.max(nowMs, trace.lastVersion + 1)
      emissions.push({
        traceId: trace.traceId,
        input: {
          traceId: trace.traceId,
          source: trace.source,
          resourceAttributes: trace.resourceAttributes,
          spans: [...trace.spans.values()],
        },
        reason,
        version: trace.lastVersion,
        rootArrivedMs: trace.rootArrivedMs,
        offsets: [...trace.pending],
      })
    }
    return emissions
  }

  /** The emission was acknowledged (or its spans dead-lettered): its offsets are released. */
  emitted(emission: Emission, nowMs: number): void {
    const trace = this.traces.get(emission.traceId)
    if (!trace) return
    const covered = new Set(emission.offsets)
    trace.pending = trace.pending.filter((offset) => !covered.has(offset))
    trace.emitting = false
    trace.forced = false
    trace.emittedMs = nowMs
  }

  /**
   * Traces of `partition` emitted before its committed offset (by this assembler before a restart,
   * or by another one): the whole ones are kept with their spans for the late window from `nowMs`,
   * so that a late span reopens them; the others are remembered as forgotten ids (a late span of
   * one is dead-lettered). Within the caps: kept traces beyond them are forgotten, oldest first.
   */
  restore(partition: string, restored: RestoredTraces, nowMs: number): void {
    for (const input of restored.whole) {
      if (this.traces.has(input.traceId)) continue
      const spans = new Map(input.spans.map((span) => [span.span_id, span]))
      let bytes = 0
      for (const span of spans.values()) bytes += spanBytes(span)
      const hasRoot = input.spans.some(this.isRoot)
      this.traces.set(input.traceId, {
        traceId: input.traceId,
        partition,
        source: input.source,
        resourceAttributes: [...input.resourceAttributes],
        spans,
        bytes,
        pending: [],
        firstArrivedMs: nowMs,
        lastArrivedMs: nowMs,
        rootArrivedMs: hasRoot ? nowMs : null,
        emittedMs: nowMs,
        emitting: false,
        lastVersion: 0,
        retryAfterMs: 0,
        forced: false,
      })
      this.forgotten.delete(input.traceId)
      this.spanCount += spans.size
      this.bytesHeld += bytes
    }
    for (const traceId of restored.idsOnly) if (!this.traces.has(traceId)) this.remember(traceId)
    this.enforceCaps()
  }

  /** The emission failed: tried again after `retryInMs`. */
  failed(emission: Emission, nowMs: number, retryInMs: number): void {
    const trace = this.traces.get(emission.traceId)
    if (!trace) return
    trace.emitting = false
    trace.retryAfterMs = nowMs + retryInMs
  }

  /** A message that is no trace's (undecodable): its offset is held until its dead letter is acknowledged. */
  hold(partition: string, offset: bigint): boolean {
    const state = this.partitionState(partition)
    if (offset < state.next) return false
    state.next = offset + 1n
    state.held.add(offset)
    return true
  }

  /** A held message's dead letter was acknowledged. */
  release(partition: string, offset: bigint): void {
    this.partitions.get(partition)?.held.delete(offset)
  }

  /** Kept traces past their late window lose their spans; only their ids are remembered. */
  expire(nowMs: number): void {
    for (const trace of this.traces.values())
      if (
        trace.emittedMs !== null &&
        !trace.emitting &&
        trace.pending.length === 0 &&
        nowMs >= trace.emittedMs + this.settings.lateWindowMs
      )
        this.forget(trace)
  }

  /**
   * Per partition whose commit offset moved: the offset to commit (the next to read), which is the
   * first offset still held by a trace not emitted or a dead letter in flight, else the one after
   * the highest seen.
   */
  commits(): Map<string, bigint> {
    const lowest = new Map<string, bigint>()
    const lower = (partition: string, offset: bigint) => {
      const seen = lowest.get(partition)
      if (seen === undefined || offset < seen) lowest.set(partition, offset)
    }
    for (const trace of this.traces.values())
      for (const offset of trace.pending) lower(trace.partition, offset)
    for (const [partition, state] of this.partitions)
      for (const offset of state.held) lower(partition, offset)
    const moved = new Map<string, bigint>()
    for (const [partition, state] of this.partitions) {
      const offset = lowest.get(partition) ?? state.next
      if (state.committed === null || offset > state.committed) moved.set(partition, offset)
    }
    return moved
  }

  /** Kafka took the commit. */
  committed(partition: string, offset: bigint): void {
    const state = this.partitions.get(partition)
    if (state && (state.committed === null || offset > state.committed)) state.committed = offset
  }

  /**
   * The partitions this assembler no longer reads from where it was (lost, or read again from the
   * committed offset after a rejoin): their traces go; what was not emitted is read again.
   */
  drop(partitions: ReadonlySet<string>): void {
    for (const trace of [...this.traces.values()])
      if (partitions.has(trace.partition)) {
        this.traces.delete(trace.traceId)
        this.spanCount -= trace.spans.size
        this.bytesHeld -= trace.bytes
      }
    for (const partition of partitions) this.partitions.delete(partition)
  }

  /** Where the assembler's holdings stand (the metrics). */
  stats() {
    let open = 0
    let kept = 0
    for (const trace of this.traces.values()) {
      if (trace.pending.length > 0 || trace.emitting) open++
      else kept++
    }
    return {
      openTraces: open,
      keptTraces: kept,
      spans: this.spanCount,
      spanBytes: this.bytesHeld,
      forgottenIds: this.forgotten.size,
    }
  }

  private partitionState(partition: string): PartitionState {
    let state = this.partitions.get(partition)
    if (!state) {
      state = { next: -1n, held: new Set(), committed: null }
      this.partitions.set(partition, state)
    }
    return state
  }

  private forget(trace: Trace): void {
    this.traces.delete(trace.traceId)
    this.spanCount -= trace.spans.size
    this.bytesHeld -= trace.bytes
    this.remember(trace.traceId)
  }

  /** An emitted trace's id, without its spans (the last `forgottenIds`). */
  private remember(traceId: string): void {
    this.forgotten.delete(traceId) // to the end: the newest
    this.forgotten.add(traceId)
    while (this.forgotten.size > this.settings.forgottenIds) {
      const oldest = this.forgotten.values().next().value as string
      this.forgotten.delete(oldest)
    }
  }

  /** Over a cap: kept traces are forgotten first (oldest first), then the oldest open ones emitted early. */
  private enforceCaps(): void {
    const { maxSpans, maxSpanBytes, maxTraces } = this.settings
    const within = (spans: number, bytes: number) => spans <= maxSpans && bytes <= maxSpanBytes
    const over = () =>
      !within(this.spanCount, this.bytesHeld) ||
      (this.traces.size > maxTraces && this.openCount() > maxTraces)
    if (!over()) return
    const byAge = [...this.traces.values()].sort((a, b) => a.firstArrivedMs - b.firstArrivedMs)
    for (const trace of byAge) {
      if (within(this.spanCount, this.bytesHeld)) break
      if (trace.emittedMs !== null && !trace.emitting && trace.pending.length === 0) this.forget(trace)
    }
    // Open traces forced out are counted as gone once their emission is acknowledged (still held until then).
    let open = this.openCount()
    let spans = this.spanCount
    let bytes = this.bytesHeld
    for (const trace of this.traces.values())
      if (trace.forced) {
        open--
        spans -= trace.spans.size
        bytes -= trace.bytes
      }
    for (const trace of byAge) {
      if (within(spans, bytes) && open <= maxTraces) break
      if (trace.forced || trace.emitting || trace.pending.length === 0) continue
      trace.forced = true
      open--
      spans -= trace.spans.size
      bytes -= trace.bytes
    }
  }

  private openCount(): number {
    let count = 0
    for (const trace of this.traces.values()) if (trace.pending.length > 0 || trace.emitting) count++
    return count
  }
}
