import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { heatmapBucketsMs } from '../../dashboards/src/voice-latency-dashboard.ts'
import { repoRoot } from './provisioned-queries.ts'

// The heatmap reads the bands conversation_latency counts (migration 0014): the migration's bounds
// must be the panel's, or a turn would be counted under another column than it belongs to.
describe('the heatmap bands of conversation_latency', () => {
  it('have the bounds of the heatmap panel, in seconds, for unflagged and flagged values', () => {
    const migration = readFileSync(
      join(repoRoot, 'schemas/clickhouse/migrations/0014_conversation_latency_bands.sql'),
      'utf8',
    )
    const seconds = heatmapBucketsMs.map((bound) => bound / 1000)
    for (const part of ['unflagged', 'flagged']) {
      const expression = new RegExp(
        `arrayMap\\(n -> toUInt32\\(n\\), \\[(.*?)\\]\\) AS e2e_latency_${part}_bands`,
      ).exec(migration)?.[1]
      expect(expression, part).toBeDefined()
      const bands = expression!.split(/, (?=arrayCount)/)
      const expected = [
        `arrayCount(v -> v <= ${seconds[0]}, e2e_latency_${part})`,
        ...seconds
          .slice(1)
          .map(
            (upper, index) => `arrayCount(v -> v > ${seconds[index]} AND v <= ${upper}, e2e_latency_${part})`,
          ),
        `arrayCount(v -> v > ${seconds.at(-1)}, e2e_latency_${part})`,
      ]
      expect(bands).toEqual(expected)
    }
  })
})
