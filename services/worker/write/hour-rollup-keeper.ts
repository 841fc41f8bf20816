import type { AgentHour } from '../../core/latency-hour-rollup.ts'
import { agentHours, insertVisibilityMarginSeconds } from '../../core/latency-hour-rollup.ts'

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

// Keeps the hour rollup (migration 0013) equal to the minute rollup, off the write path: every
// WORKER_HOUR_ROLLUP_INTERVAL_MS it asks which agent-hours have minute rows stored after their last
// recompute and recomputes those that have ended (latency-hour-rollup.ts). A write no longer waits for
// it, so a drain no longer recomputes the same hours after every write. An hour still running is
// held until it ends: no panel reads it from the hour rollup before it ended
// (hourRollupReadDelayMinutes), so recomputing it every pass while calls pour in would be wasted.
// Late calls into an ended hour are taken in within an interval. Nothing is lost to a crash or an
// outage: the rows carry their insert time, so the first pass of the next worker, or the next pass
// after ClickHouse came back, finds what no pass took in (the held hours too). Each pass reads only
// rows stamped since the pass before began, less the margin of an insert still landing; the first
// reads every row.
export interface HourRollupKeeperDeps {
  /** ClickHouse's clock (epoch ms): insert times are stamped by it, not by this process. */
  serverNow: () => Promise<number>
  dirtyHours: (sinceMs: number) => Promise<AgentHour[]>
  recompute: (hours: readonly AgentHour[]) => Promise<void>
  intervalMs: number
  onPass: (outcome: { hours: number } | { error: unknown }) => void
}

export class HourRollupKeeper {
  private sinceMs = 0
  /** Dirty hours still running, by agent and hour: recomputed by the first pass after they end. */
  private readonly held = new Map<string, AgentHour>()
  private timer: NodeJS.Timeout | undefined
  private current: Promise<number> | undefined
  private stopped = false
  private readonly deps: HourRollupKeeperDeps

  constructor(deps: HourRollupKeeperDeps) {
    this.deps = deps
  }

  /** Where the next pass starts reading (epoch ms of insert time). */
  get readsFrom(): number {
    return this.sinceMs
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

  /** A pass now, then one every interval until stop(); a failed pass is reported and the next one tries again. */
  start(): void {
    const schedule = (delayMs: number) => {
      if (this.stopped) return
      this.timer = setTimeout(async () => {
        try {
          await this.pass()
        } catch {
          // reported through onPass
        }
        schedule(this.deps.intervalMs)
      }, delayMs)
      this.timer.unref()
    }
    schedule(0)
  }

  /**
   * No timed pass any more; a last one takes in the worker's last writes (a worker stopped for an
   * upgrade leaves its hours right). One that fails is left to the next worker's first pass.
   */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.pass().catch(() => undefined)
  }

  private async run(): Promise<number> {
    try {
      const startedAt = await this.deps.serverNow()
      const dirty = await this.deps.dirtyHours(this.sinceMs)
      const { due, running } = endedHours([...this.held.values(), ...dirty], startedAt)
      if (due.length > 0) await this.deps.recompute(due)
      this.held.clear()
      for (const hour of running) this.held.set(`${hour.agent_id}\u0000${hour.hour}`, hour)
      this.sinceMs = Math.max(this.sinceMs, startedAt - insertVisibilityMarginSeconds * 1000)
      this.deps.onPass({ hours: due.length })
      return due.length
    } catch (error) {
      this.deps.onPass({ error })
      throw error
    }
  }
}
