import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeAlertmanagerConfig } from '../../dashboards/src/alerting/alerting-config-files.ts'
import { freePort } from '../support/private-kafka.ts'
import { findBinary } from './promtool.ts'
import { whenReady } from './server-ready.ts'

// An Alertmanager of the test's (or benchmark's) own: Debian's binary, the repository's config
// rendered from the ALERT_* variables given (as the local stack renders it), its own data
// directory, a free port on loopback, no cluster. Stopped by its pid.
export interface AlertmanagerAlert {
  labels: Record<string, string>
  annotations: Record<string, string>
  startsAt: string
  status: { state: 'active' | 'suppressed' | 'unprocessed'; silencedBy: string[]; inhibitedBy: string[] }
}

export interface AlertmanagerServer {
  url: string
  alerts(): Promise<AlertmanagerAlert[]>
  /** Creates a silence through the API; returns its id. */
  silence(matchers: Record<string, string>, minutes: number, comment: string): Promise<string>
  expireSilence(id: string): Promise<void>
  stop(): Promise<void>
  log(): string
}

export async function startAlertmanager(env: Record<string, string>): Promise<AlertmanagerServer> {
  const binary = findBinary('alertmanager')
  const dir = mkdtempSync(join(tmpdir(), 'va-alertmanager-'))
  const { configFile } = writeAlertmanagerConfig(join(dir, 'config'), env)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const logFile = join(dir, 'alertmanager.log')
  const log = createWriteStream(logFile)
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  child.stdout?.pipe(log)
  child.stderr?.pipe(log)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const api = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${url}/api/v2${path}`, init)
    if (!response.ok) throw new Error(`Alertmanager ${path}: ${response.status} ${await response.text()}`)
    return response
  }
  const server: AlertmanagerServer = {
    url,
    alerts: async () => (await (await api('/alerts')).json()) as AlertmanagerAlert[],
    async silence(matchers, minutes, comment) {
      const now = Date.now()
      const response = await api('/silences', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          matchers: Object.entries(matchers).map(([name, value]) => ({
            name,
            value,
            isRegex: false,
            isEqual: true,
          })),
          startsAt: new Date(now).toISOString(),
          endsAt: new Date(now + minutes * 60_000).toISOString(),
          createdBy: 'voice-analytics test',
          comment,
        }),
      })
      return ((await response.json()) as { silenceID: string }).silenceID
    },
    async expireSilence(id) {
      await api(`/silence/${encodeURIComponent(id)}`, { method: 'DELETE' })
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
    log: () => readFileSync(logFile, 'utf8'),
  }

  return whenReady('alertmanager', url, child, server)
}
