import { describe, expect, it } from 'vitest'
import { liveness, readiness, type WorkerCondition } from './worker-probes.ts'

const calm = { failing: [], stalled: false, secondsWithoutProgress: 0, reason: undefined }
const base: WorkerCondition = {
  phase: 'running',
  waitingFor: undefined,
  stall: calm,
  topic: 't',
  groupId: 'g',
}
const at = (change: Partial<WorkerCondition>) => ({ ...base, ...change })

describe('worker probes', () => {
  it.each([
    ['starting, waiting for Kafka', at({ phase: 'starting', waitingFor: 'kafka' }), true, false],
    ['running and committing', base, true, true],
    [
      'running, retrying ClickHouse within the stall bound',
      at({
        stall: {
          failing: ['clickhouse'],
          stalled: false,
          secondsWithoutProgress: 3,
          reason: 'retrying clickhouse',
        },
      }),
      true,
      false,
    ],
    [
      'stalled',
      at({
        stall: {
          failing: [],
          stalled: true,
          secondsWithoutProgress: 200,
          reason: 'no offset committed for 200 s',
        },
      }),
      false,
      false,
    ],
    ['stopped', at({ phase: 'stopped' }), false, false],
  ])('%s: alive %s, ready %s', (_name, condition, alive, ready) => {
    expect(liveness(condition).healthy).toBe(alive)
    expect(readiness(condition).healthy).toBe(ready)
  })

  it('says what a starting worker waits for', () => {
    const answer = liveness(at({ phase: 'starting', waitingFor: 'clickhouse' }))
    expect(answer).toMatchObject({
      consumer: 'starting',
      waitingFor: 'clickhouse',
      reason: 'starting: waiting for clickhouse',
    })
  })

  it('says whether ClickHouse fails, as the progress watch knows it', () => {
    expect(liveness(base).clickhouseFailing).toBe(false)
    const retrying = { ...calm, failing: ['schema_registry', 'clickhouse'] as const, reason: 'retrying' }
    expect(readiness(at({ stall: retrying })).clickhouseFailing).toBe(true)
  })
})
