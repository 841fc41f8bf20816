import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { freePort } from '../support/private-kafka.ts'
import { findBinary } from './promtool.ts'
import { whenReady } from './server-ready.ts'

// A Prometheus of the test's own (Debian's binary, never a system service): temp config and
// data directory, a free port on loopback, the repository's rule files, fast scrape and rule
// evaluation (or the interval given: the alerting benchmark runs the shipped 15 s), and the
// Alertmanager given to send alerts to. Stopped by its pid.
export interface ScrapeTarget {
  job: string
  /** host:port */
  address: string
}

export interface PrometheusServer {
  url: string
  /** Instant query: the result vector as label sets with numeric values. */
  query(expr: string): Promise<{ labels: Record<string, string>; value: number }[]>
  alerts(): Promise<{ labels: Record<string, string>; state: string; annotations: Record<string, string> }[]>
  stop(): Promise<void>
  log(): string
}

export interface PrometheusOptions {
  /** scrape and evaluation interval; 1s unless given */
  interval?: string
  /** base URL of an Alertmanager to send alerts to */
  alertmanagerUrl?: string
}

export async function startPrometheus(
  targets: ScrapeTarget[],
  ruleFiles: string[],
  { interval = '1s', alertmanagerUrl }: PrometheusOptions = {},
): Promise<PrometheusServer> {
  const binary = findBinary('prometheus')
  const dir = mkdtempSync(join(tmpdir(), 'va-prometheus-'))
  const config = join(dir, 'prometheus.yml')
  writeFileSync(
    config,
    stringify({
      global: { scrape_interval: interval, scrape_timeout: '1s', evaluation_interval: interval },
      rule_files: ruleFiles,
      ...(alertmanagerUrl
        ? {
            alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(alertmanagerUrl).host] }] }] },
          }
        : {}),
      // One scrape config per job, with every target of that job.
      scrape_configs: [...new Set(targets.map((target) => target.job))].map((job) => ({
        job_name: job,
        metrics_path: '/metrics',
        static_configs: [{ targets: targets.filter((target) => target.job === job).map((t) => t.address) }],
      })),
    }),
  )
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const logFile = join(dir, 'prometheus.log')
  const log = createWriteStream(logFile)
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  child.stdout?.pipe(log)
  child.stderr?.pipe(log)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`)
    const body = (await response.json()) as { status: string; data: T; error?: string }
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error}`)
    return body.data
  }
  const server: PrometheusServer = {
    url,
    async query(expr) {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      )
      return data.result.map((sample) => ({ labels: sample.metric, value: Number(sample.value[1]) }))
    },
    async alerts() {
      const data = await api<{
        alerts: { labels: Record<string, string>; state: string; annotations: Record<string, string> }[]
      }>('/api/v1/alerts')
      return data.alerts
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

  return whenReady('prometheus', url, child, server)
}
