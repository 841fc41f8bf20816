// When the assembler emits a trace's conversations, how long it keeps them for late spans, and how
// much it holds (docs/otlp.md, "The assembler"; ASSEMBLER_* in docs/reference.md).
export interface AssemblySettings {
  /** After the root span arrived: the wait for its children still in the SDK's next batch. */
  rootGraceMs: number
  /** A trace without its root emits (incomplete) after this long without a new span. */
  idleMs: number
  /** An emitted trace's spans are kept this long: a late span makes a newer, complete delivery. */
  lateWindowMs: number
  /**
   * On reading a partition afresh, how far back before its last committed message the emitted
   * traces are restored (restore-plan.ts): those whose spans all came in the last
   * restoreMs - (idleMs + lateWindowMs) are restored whole, the others as ids.
   */
  restoreMs: number
  /** Emitted trace ids remembered after their window (a later span is dead-lettered, not assembled alone). */
  forgottenIds: number
  /** Spans held in open and kept traces; beyond it the oldest are emitted early (kept ones dropped first). */
  maxSpans: number
  /**
   * What those spans weigh (span-bytes.ts), the same way: the cap that bounds memory, since a span of a
   * long LiveKit call (its LLM spans repeat the whole chat context) weighs many times a short one's.
   */
  maxSpanBytes: number
  /** Open traces held; beyond it the oldest are emitted early. */
  maxTraces: number
}

export const defaultAssemblySettings: AssemblySettings = {
  rootGraceMs: 2_000,
  idleMs: 300_000,
  lateWindowMs: 600_000,
  restoreMs: 2_700_000,
  forgottenIds: 100_000,
  maxSpans: 500_000,
  maxSpanBytes: 512 * 1024 * 1024,
  maxTraces: 20_000,
}
