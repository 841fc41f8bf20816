import { setTimeout as sleep } from 'node:timers/promises'
import { probeHttp } from '../core/startup-diagnosis/http-probe.ts'

// The dev job prints the webhook URL and the `send` command only once the ingress answers /readyz
// 200 (schema registered, Kafka reachable): a URL printed earlier is one a newcomer (or a test)
// POSTs to and gets 503. Waits as long as it takes, saying every `reportEveryMs` what it waits for.
export interface WaitOptions {
  pollMs?: number
  reportEveryMs?: number
  onWaiting: (reason: string) => void
  signal?: AbortSignal
}

export async function waitUntilReady(readyUrl: string, options: WaitOptions): Promise<void> {
  const pollMs = options.pollMs ?? 200
  const reportEveryMs = options.reportEveryMs ?? 5_000
  let lastReport = Date.now()
  for (;;) {
    const observed = await probeHttp(readyUrl, { timeoutMs: 3_000 })
    if (observed.kind === 'answered' && observed.status === 200) return
    if (Date.now() - lastReport >= reportEveryMs) {
      lastReport = Date.now()
      options.onWaiting(
        observed.kind === 'answered' ? `${observed.status} ${observed.bodyStart}` : observed.reason,
      )
    }
    await sleep(pollMs, undefined, { signal: options.signal })
  }
}
