import { execFileSync, spawnSync } from 'node:child_process'

// Prometheus and promtool from Debian's `prometheus` package, Alertmanager and amtool from
// `prometheus-alertmanager`. A test that needs them and cannot find them fails, saying how to
// install them; it never skips.
const binaries = {
  prometheus: { package: 'prometheus', names: ['prometheus'] },
  promtool: { package: 'prometheus', names: ['promtool'] },
  // Debian names the server prometheus-alertmanager; upstream's release calls it alertmanager.
  alertmanager: { package: 'prometheus-alertmanager', names: ['prometheus-alertmanager', 'alertmanager'] },
  amtool: { package: 'prometheus-alertmanager', names: ['amtool'] },
} as const

export type MonitoringBinary = keyof typeof binaries

export const installHint = (name: MonitoringBinary) =>
  `install Debian's ${binaries[name].package} package: \`sudo apt-get update && sudo apt-get install -y ` +
  `${binaries[name].package}\` (./run test does this as root), or put ${binaries[name].names.join(' or ')} on PATH`

export function findBinary(name: MonitoringBinary): string {
  for (const candidate of binaries[name].names) {
    const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' })
    const path = found.stdout.trim()
    if (found.status === 0 && path) return path
  }
  throw new Error(`${name} not found: ${installHint(name)}`)
}

export interface ToolResult {
  status: number
  output: string
}

/** Runs promtool; returns its exit status and combined output (promtool prints errors to stderr). */
export function promtool(args: string[], cwd?: string): ToolResult {
  const result = spawnSync(findBinary('promtool'), args, { cwd, encoding: 'utf8' })
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` }
}

export function prometheusVersion(): string {
  return execFileSync(findBinary('prometheus'), ['--version'], { encoding: 'utf8' }).split('\n')[0]!
}
