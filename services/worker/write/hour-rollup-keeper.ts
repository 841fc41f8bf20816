import type { AgentHour } from '../../../core/clickhouse/latency-hour-rollup.ts'
import { agentHours, insertVisibilityMarginSeconds } from '../../../core/clickhouse/latency-hour-rollup.ts'

// Keeps the hour rollup (migration 0013) equal to the minute rollup, off the write path. The worker's
// write tells it the agent-hours it changed once its inserts landed (touched); every
// WORKER_HOUR_ROLLUP_INTERVAL_MS a pass recomputes those that ended (latency-hour-rollup.ts), each
// once however many writes touched it meanwhile. An hour still running is held until it ended: no
// panel reads it from the hour rollup before (dashboards/src/latency-rollup-rows.ts), so recomputing
// it while calls pour in would be wasted. What no write of this worker told it — another worker's
// rows, a crashed worker's, a write whose recompute a stop cut off — is found by the rows' insert
// time (migration 0017, dirtyHoursStatement): the first pass reads every row, and one pass a minute
// the rows stamped since the scan before, less the margin of an insert still landing.
const scanEveryMs = 60_000

// A pass over many months (a backfill) takes seconds, and the writes share ClickHouse with it: the
// next pass waits three times as long as the last one took, so the keeper holds at most a quarter of
// the engine and takes in more hours per pass (each partition's fixed cost paid once for more of
// them). Never longer than a minute: panels read an hour from the hour rollup 5 minutes after it ended.
const spacingPerPassTime = 3
const maxSpacingMs = 60_000

/** How long after a pass that took `passMs` the next one starts. */
export function nextPassDelayMs(intervalMs: number, passMs: number): number {
  return Math.max(intervalMs, Math.min(spacingPerPassTime * passMs, maxSpacingMs))
}

/** The agent-hours (each once) that ended by `nowMs`, and those still running. */
export function endedHours(
  hours: readonly AgentHour[],
  nowMs: number,
): { due: AgentHour[]; running: AgentHour[] } {
  const distinct = agentHours(hours.map(({ agent_id, hour }) => ({ agent_id, minute: hour })))
  return {
    due: distinct.filter((entry) => (entry.hour + 3600) * 1000 <= nowMs),
    running: distinct.filter((entry) => (entry.hour + 3600) * 1000 > nowMs),
  }
}

export interface HourRollupKeeperDeps {
  /** ClickHouse's clock (epoch ms): insert times are stamped by it, not by this process. */
  serverNow: () => Promise<number>
  dirtyHours: (sinceMs: number) => Promise<AgentHour[]>
  recompute: (hours: readonly AgentHour[]) => Promise<void>
  intervalMs: number
  /** A pass ended: the agent-hours it recomputed and how long it took, or why it failed. */
  onPass: (outcome: { hours: number; seconds: number } | { error: unknown }) => void
}

const keyOf = (hour: AgentHour) => `${hour.agent_id}\u0000${hour.hour}`

export class HourRollupKeeper {
  /** Rows stamped before this (less the margin) were scanned (epoch ms); -1: never scanned. */
  private scannedFrom = -1
  private lastScanMs = 0
  /** Agent-hours to recompute once they ended: told by writes, found by scans, held while running. */
  private readonly pending = new Map<string, AgentHour>()
  /** How long the last pass took, failed or not (ms): what spaces the next one. */
  private lastPassMs = 0
  private timer: NodeJS.Timeout | undefined
  private current: Promise<number> | undefined
  private stopped = false
  private readonly deps: HourRollupKeeperDeps

  constructor(deps: HourRollupKeeperDeps) {
    this.deps = deps
  }

  /** A write of this worker landed rows in these agent-hours (call once its inserts returned). */
  touched(hours: Iterable<AgentHour>): void {
    for (const hour of hours) this.pending.set(keyOf(hour), hour)
  }

  /**
   * One pass, after the one running (if any) ended: resolves with the agent-hours it recomputed,
   * rejects when ClickHouse failed it (what it was to take in stays for the next pass).
   */
  pass(): Promise<number> {
    const next = (this.current ?? Promise.resolve(0)).catch(() => 0).then(() => this.run())
    this.current = next
    return next
  }

  /**
   * A pass now, then one every interval (longer after a long pass: nextPassDelayMs) until stop(); a
   * failed pass is reported and the next one tries again.
   */
  start(): void {
    const schedule = (delayMs: number) => {
      if (this.stopped) return
      this.timer = setTimeout(async () => {
        try {
          await this.pass()
        } catch {
          // reported through onPass
        }
        schedule(nextPassDelayMs(this.deps.intervalMs, this.lastPassMs))
      }, delayMs)
      this.timer.unref()
    }
    schedule(0)
  }

  /**
   * No timed pass any more; a last one takes in the worker's last writes (a worker stopped for an
   * upgrade leaves its ended hours right). One that fails is left to the next worker's first pass.
   */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.pass().catch(() => undefined)
  }

  private async run(): Promise<number> {
    let told: AgentHour[] = []
    const began = performance.now()
    try {
      const startedAt = await this.deps.serverNow()
      // Taken after the clock: a write whose inserts returned before it is read by the recompute.
      told = [...this.pending.values()]
      this.pending.clear()
      const scan = this.scannedFrom < 0 || startedAt - this.lastScanMs >= scanEveryMs
      const found = scan ? await this.deps.dirtyHours(Math.max(this.scannedFrom, 0)) : []
      const { due, running } = endedHours([...told, ...found], startedAt)
      if (due.length > 0) await this.deps.recompute(due)
      this.touched(running)
      if (scan) {
        this.scannedFrom = Math.max(this.scannedFrom, startedAt - insertVisibilityMarginSeconds * 1000)
        this.lastScanMs = startedAt
      }
      this.lastPassMs = performance.now() - began
      this.deps.onPass({ hours: due.length, seconds: this.lastPassMs / 1000 })
      return due.length
    } catch (error) {
      this.lastPassMs = performance.now() - began
      this.touched(told)
      this.deps.onPass({ error })
      throw error
    }
  }
}
