// Posts conversations to an ingress with bounded concurrency (and optionally a rate), and
// tallies the answers. Used by `voice-analytics send` for demos and manual checks: JSON webhooks,
// or OTLP/HTTP JSON export requests (each body says where it goes).
export interface SendOptions {
  /** Where a body without a URL of its own goes. */
  url: string
  concurrency: number
  /** Events per second at most; 0 = as fast as the concurrency allows. */
  ratePerSecond: number
  onProgress?: (done: number, total: number) => void
}

export interface SendSummary {
  sent: number
  byStatus: Record<string, number>
  seconds: number
  firstErrors: string[]
}

/** A body, or a body with the URL it goes to. */
export type Outgoing = string | { url: string; body: string }

export async function sendWebhooks(bodies: readonly Outgoing[], options: SendOptions): Promise<SendSummary> {
  const summary: SendSummary = { sent: 0, byStatus: {}, seconds: 0, firstErrors: [] }
  const started = performance.now()
  let next = 0
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++
      if (options.ratePerSecond > 0) {
        const due = started + (index * 1000) / options.ratePerSecond
        const wait = due - performance.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      }
      let status: string
      try {
        const outgoing = bodies[index]!
        const response = await fetch(typeof outgoing === 'string' ? options.url : outgoing.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: typeof outgoing === 'string' ? outgoing : outgoing.body,
        })
        status = String(response.status)
        const text = await response.text()
        if (response.status >= 300 && summary.firstErrors.length < 5)
          summary.firstErrors.push(`${status} ${text}`)
      } catch (error) {
        status = 'network-error'
        if (summary.firstErrors.length < 5)
          summary.firstErrors.push(error instanceof Error ? error.message : String(error))
      }
      summary.byStatus[status] = (summary.byStatus[status] ?? 0) + 1
      summary.sent++
      options.onProgress?.(summary.sent, bodies.length)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker))
  summary.seconds = (performance.now() - started) / 1000
  return summary
}
