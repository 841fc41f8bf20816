// Whether the worker makes progress: a worker retrying a dependency, or holding batches it cannot
// commit, must say so (/healthz, worker_stalled) instead of answering 200 while nothing moves. The one
// place that knows which dependency fails: the batch writer (ClickHouse) and the batch processor (the
// registry, the DLQ) report here; /healthz, the *_failing gauges and the consumer's pause read it.
// Progress is a commit; a worker with nothing in hand is idle, not stalled. The clock starts when
// work arrives after idleness, so a quiet night is no stall.
export type Dependency = 'clickhouse' | 'schema_registry' | 'dead_letter_publish'

export interface ProgressState {
  batchesInFlight: number
  /** Last commit, or when work arrived after the worker was idle (ms). */
  lastProgressMs: number
  /** Dependencies failing right now, oldest first. */
  failing: readonly Dependency[]
}

export interface StallStatus {
  /** Dependencies failing right now, oldest first. */
  failing: readonly Dependency[]
  stalled: boolean
  secondsWithoutProgress: number
  /** Why it is stalled (or what it retries), for /healthz and the logs. */
  reason: string | undefined
}

export function stallStatus(state: ProgressState, nowMs: number, boundSeconds: number): StallStatus {
  const secondsWithoutProgress =
    state.batchesInFlight > 0 ? Math.max(0, (nowMs - state.lastProgressMs) / 1000) : 0
  const stalled = secondsWithoutProgress > boundSeconds
  const waiting = state.failing.length > 0 ? `retrying ${state.failing.join(', ')}` : undefined
  const reason = stalled
    ? `no offset committed for ${Math.round(secondsWithoutProgress)} s with ${state.batchesInFlight} batch(es) in hand` +
      (waiting ? `: ${waiting}` : '')
    : waiting
  return { failing: state.failing, stalled, secondsWithoutProgress, reason }
}

/** The mutable side: the batch processor and the writer report here, /healthz and /metrics read. */
export class ProgressWatch {
  private inFlight = 0
  private lastProgressMs: number
  private readonly failing = new Set<Dependency>()
  private readonly listeners: Array<(dependency: Dependency, failing: boolean) => void> = []
  private readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
    this.lastProgressMs = now()
  }

  batchStarted(): void {
    if (this.inFlight === 0) this.lastProgressMs = this.now()
    this.inFlight++
  }

  batchFinished(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
  }

  committed(): void {
    this.lastProgressMs = this.now()
  }

  /** The dependency fails (true) or answers (false); true when that changed what was known. */
  dependencyFailing(dependency: Dependency, failing: boolean): boolean {
    if (this.failing.has(dependency) === failing) return false
    if (failing) this.failing.add(dependency)
    else this.failing.delete(dependency)
    for (const listener of this.listeners) listener(dependency, failing)
    return true
  }

  /** Told of every change (e.g. the consumer pauses while ClickHouse fails). */
  onDependencyChange(listener: (dependency: Dependency, failing: boolean) => void): void {
    this.listeners.push(listener)
  }

  status(boundSeconds: number): StallStatus {
    return stallStatus(
      { batchesInFlight: this.inFlight, lastProgressMs: this.lastProgressMs, failing: [...this.failing] },
      this.now(),
      boundSeconds,
    )
  }
}
