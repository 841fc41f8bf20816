import type { ProbeAnswer } from '../../../core/runtime/metrics-server.ts'
import type { StallStatus } from './progress-watch.ts'

// What the worker's /healthz (liveness) and /readyz (readiness) answer, from its phase and progress.
// Alive from its first second: a worker waiting at start for ClickHouse or Kafka is alive (an
// orchestrator must not restart it for waiting on a broker) but not ready. Ready only while it
// consumes, commits and retries nothing; a stalled or stopped worker is neither.
export type WorkerPhase = 'starting' | 'running' | 'stopped'

export interface WorkerCondition {
  phase: WorkerPhase
  /** At start: what it waits for (e.g. "clickhouse", "kafka"). */
  waitingFor: string | undefined
  stall: StallStatus
  topic: string
  groupId: string
}

export type { ProbeAnswer }

function details(condition: WorkerCondition) {
  const { phase, stall } = condition
  return {
    consumer: phase,
    stalled: stall.stalled,
    reason:
      phase === 'running'
        ? stall.reason
        : phase === 'starting'
          ? `starting: waiting for ${condition.waitingFor ?? 'the consumer group'}`
          : 'consumer stopped',
    secondsWithoutProgress: Math.round(stall.secondsWithoutProgress),
    clickhouseFailing: stall.failing.includes('clickhouse'),
    topic: condition.topic,
    groupId: condition.groupId,
    ...(phase === 'starting' ? { waitingFor: condition.waitingFor } : {}),
  }
}

export function liveness(condition: WorkerCondition): ProbeAnswer {
  const healthy =
    condition.phase === 'starting' || (condition.phase === 'running' && !condition.stall.stalled)
  return { healthy, ...details(condition) }
}

export function readiness(condition: WorkerCondition): ProbeAnswer {
  const healthy =
    condition.phase === 'running' && !condition.stall.stalled && condition.stall.reason === undefined
  return { healthy, ...details(condition) }
}
