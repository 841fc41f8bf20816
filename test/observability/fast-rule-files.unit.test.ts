import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fastRuleText, writeFastRuleFiles } from './fast-rule-files.ts'
import { promtool } from './promtool.ts'

// The fast rule copies of the alert delivery test: every minute scaled, nothing else changed,
// and still rules promtool accepts.
const scratch = mkdtempSync(join(tmpdir(), 'va-fast-rules-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('fastRuleText', () => {
  it('scales windows, offsets, for: and the fresh-series seconds; leaves the rest', () => {
    const text = [
      '        expr: (time() - process_start_time_seconds < 600) * 0 + 1 or (up offset 10m) * 0 + 1',
      '        expr: increase(voice_failed_rooms_total[10m]) >= scalar(voice_analytics:param:x_10m)',
      '        for: 2m',
      '        summary: failed rooms in 10 minutes',
    ].join('\n')
    expect(fastRuleText(text, 2)).toBe(
      [
        '        expr: (time() - process_start_time_seconds < 20) * 0 + 1 or (up offset 20s) * 0 + 1',
        '        expr: increase(voice_failed_rooms_total[20s]) >= scalar(voice_analytics:param:x_10m)',
        '        for: 4s',
        '        summary: failed rooms in 10 minutes',
      ].join('\n'),
    )
  })

  it('writes copies of every rule file that promtool accepts, with no minute left in a window', () => {
    const files = writeFastRuleFiles(scratch, 2)
    expect(files.length).toBeGreaterThanOrEqual(3)
    const result = promtool(['check', 'rules', ...files])
    expect(result.status, result.output).toBe(0)
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toMatch(/\[\d+m\]|offset \d+m|for: \d+m/)
  })
})
