import { execFileSync, spawnSync } from 'node:child_process'

// Prometheus and promtool from Debian's `prometheus` package. A test that needs them and cannot
// find them fails, saying how to install them; it never skips.
export const installHint =
  "install Debian's prometheus package: `sudo apt-get update && sudo apt-get install -y prometheus` " +
  '(gives /usr/bin/prometheus and /usr/bin/promtool; .ci/run does this on CI), or put both on PATH'

export function findBinary(name: 'prometheus' | 'promtool'): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' })
  const path = found.stdout.trim()
  if (found.status !== 0 || !path) throw new Error(`${name} not found: ${installHint}`)
  return path
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
