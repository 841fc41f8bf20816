import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './provisioned-queries.ts'

// The repository's rule files with every minute made a few seconds, for tests that watch alerts
// fire, resolve and reach Alertmanager in seconds: range windows `[10m]`, `offset 10m`, `for: 2m`
// and the seconds literals of the fresh-series rules (`< 600`). Expressions, thresholds and labels
// stay as shipped. The shipped timing is what bench/alerting-bench.ts measures.
const rulesDir = join(repoRoot, 'dashboards/prometheus/rules')

/** Rule-file text with each minute of its windows and `for:` durations as `secondsPerMinute` s. */
export function fastRuleText(text: string, secondsPerMinute: number): string {
  const scaled = (minutes: string) => `${Number(minutes) * secondsPerMinute}s`
  return text
    .replace(/\[(\d+)m\]/g, (_, minutes: string) => `[${scaled(minutes)}]`)
    .replace(/offset (\d+)m\b/g, (_, minutes: string) => `offset ${scaled(minutes)}`)
    .replace(/^(\s+for: )(\d+)m$/gm, (_, prefix: string, minutes: string) => `${prefix}${scaled(minutes)}`)
    .replace(
      /process_start_time_seconds < (\d+)\)/g,
      (_, seconds: string) => `process_start_time_seconds < ${(Number(seconds) / 60) * secondsPerMinute})`,
    )
}

/** Writes the fast copies into `dir`; returns their paths for Prometheus's rule_files. */
export function writeFastRuleFiles(dir: string, secondsPerMinute: number): string[] {
  mkdirSync(dir, { recursive: true })
  return readdirSync(rulesDir)
    .filter((file) => file.endsWith('.yml'))
    .map((file) => {
      const path = join(dir, file)
      writeFileSync(path, fastRuleText(readFileSync(join(rulesDir, file), 'utf8'), secondsPerMinute))
      return path
    })
}
