import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { pendingCheckDelay, requestQueuePath } from './kafkajs-negative-timeout.ts'

const require = createRequire(import.meta.url)

describe('kafkajs request queue pending check', () => {
  it('waits until a throttle ends, else checks soon, never with a negative delay', () => {
    expect(pendingCheckDelay(1_500, 1_000, 0)).toBe(500)
    expect(pendingCheckDelay(-1, 1_000, 3)).toBe(10)
    expect(pendingCheckDelay(-1, 1_000, 0)).toBe(1)
    expect(pendingCheckDelay(1_000, 1_000, 0)).toBe(1)
  })

  it('schedules without a TimeoutNegativeWarning when the broker is not throttling', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(warning.name)
    process.on('warning', onWarning)
    try {
      const RequestQueue = require(requestQueuePath)
      const queue = new RequestQueue({
        maxInFlightRequests: 1,
        requestTimeout: 1_000,
        enforceRequestTimeout: false,
        clientId: 'test',
        broker: 'localhost:1',
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      })
      queue.scheduleCheckPendingRequests()
      expect(queue.throttleCheckTimeoutId).not.toBeNull()
      // kafkajs checks again and again while a connection lives; let a few checks run.
      await new Promise((resolve) => setTimeout(resolve, 50))
      queue.destroy()
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings).not.toContain('TimeoutNegativeWarning')
  })
})
