// Posts conversations to an ingress with bounded concurrency (and optionally a rate), and
// tallies the answers. Used by `voice-analytics send` for demos and manual checks.
export interface SendOptions {
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

export async function sendWebhooks(bodies: readonly string[], options: SendOptions): Promise<SendSummary> {
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
        const response = await fetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bodies[index],
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
