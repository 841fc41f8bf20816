import { type BackoffSettings, backoffDelay } from './backoff.ts'

// Runs an operation until it succeeds: a dependency that is down gets retried with backoff,
// forever, until the worker stops (then WorkerStoppingError, and nothing is committed).
export class WorkerStoppingError extends Error {
  override name = 'WorkerStoppingError'
}

export interface RetryOptions {
  signal: AbortSignal
  backoff: BackoffSettings
  /** Errors that retrying cannot fix go back to the caller at once. */
  giveUp?: (error: unknown) => boolean
  onFailure: (error: unknown, attempt: number, delayMs: number) => void
  /** Called while waiting (e.g. the Kafka heartbeat, so the group keeps the partition). */
  keepAlive?: () => Promise<void>
}

export async function retryUntil<T>(operation: () => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) throw new WorkerStoppingError('stopping before the operation succeeded')
    try {
      return await operation()
    } catch (error) {
      if (options.giveUp?.(error)) throw error
      const delayMs = backoffDelay(attempt, options.backoff)
      options.onFailure(error, attempt, delayMs)
      try {
        await sleep(delayMs, options.signal)
      } catch {
        throw new WorkerStoppingError('stopping while waiting to retry', { cause: error })
      }
      await options.keepAlive?.()
    }
  }
}

// The global timer (not node:timers/promises), so that unit tests drive the backoff with fake timers.
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
