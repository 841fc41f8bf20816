import { createRequire } from 'node:module'

// kafkajs 2.2.4 schedules its request queue's pending check at `throttledUntil - now`, which is
// negative whenever the broker is not throttling: Node 24 then prints a TimeoutNegativeWarning on
// every start (and clamps the delay to 1 ms). The same method with the delay clamped the way Node
// would: same behaviour, no warning. (kafkajs is unmaintained, so no fix is coming upstream.)
const require = createRequire(import.meta.url)
export const requestQueuePath = require.resolve('kafkajs/src/network/requestQueue/index.js')

interface RequestQueueInternals {
  throttledUntil: number
  throttleCheckTimeoutId: NodeJS.Timeout | null
  pending: unknown[]
  checkPendingRequests(): void
  scheduleCheckPendingRequests(): void
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL. */
const checkPendingIntervalMs = 10

/** The delay kafkajs means: until the throttle ends, else soon; never negative. */
export function pendingCheckDelay(throttledUntil: number, now: number, pending: number): number {
  const untilThrottleEnds = throttledUntil - now
  if (untilThrottleEnds > 0) return untilThrottleEnds
  return pending > 0 ? checkPendingIntervalMs : 1
}

const RequestQueue = require(requestQueuePath) as { prototype: RequestQueueInternals }
RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(
  this: RequestQueueInternals,
) {
  if (this.throttleCheckTimeoutId) return
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null
      this.checkPendingRequests()
    },
    pendingCheckDelay(this.throttledUntil, Date.now(), this.pending.length),
  )
}
