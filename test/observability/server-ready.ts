import type { ChildProcess } from 'node:child_process'

// The start of a test's Prometheus or Alertmanager: both answer GET /-/ready once they serve. Waits
// up to 30 s; a process that exits first, or never gets ready, fails the test with its log, and is
// stopped so nothing is left running.
export async function whenReady<Server extends { stop(): Promise<void>; log(): string }>(
  name: string,
  url: string,
  child: ChildProcess,
  server: Server,
): Promise<Server> {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${server.log()}`)
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    )
    if (ready) return server
    if (Date.now() > deadline) {
      await server.stop()
      throw new Error(`${name} not ready within 30 s`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
