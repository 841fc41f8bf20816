import type { Command } from 'commander'
import { loadConfig } from '../../core/settings/env.ts'
import { durationMs, sinceMs } from '../versions/time-options.ts'
import { routedReader } from '../versions/versions-queries.ts'
import { versionsReport } from '../versions/versions-report.ts'
import { versionsJson, versionsText } from '../versions/versions-text.ts'

// `versions [--agent <id>] [--since <time>]`: each agent's versions, inferred from the conversations'
// configuration fingerprints, and for each change what changed and the figures before and after it
// with 95 % intervals (#32; docs/metrics.md, "Agent versions"). Read-only, reaching ClickHouse as
// `query` does.
interface VersionsCommandOptions {
  agent?: string
  since?: string
  window: string
  json?: boolean
}

export function registerVersionsCommand(program: Command): void {
  program
    .command('versions')
    .description(
      "each agent's configuration versions, what changed, and the figures before and after each change with 95 % intervals",
    )
    .option('--agent <agent_id>', 'one agent (default: every agent)')
    .option(
      '--since <time>',
      'only changes first seen since: ISO 8601 time or a duration back from now (7d, 36h)',
    )
    .option('--window <duration>', 'the longest window compared on either side of a change', '7d')
    .option('--json', 'the report as JSON')
    .action(async (options: VersionsCommandOptions) => {
      const maxWindowMs = durationMs(options.window)
      if (maxWindowMs === undefined || maxWindowMs <= 0)
        throw new Error(`--window: a duration such as 7d, 36h or 90m, not ${options.window}`)
      const config = loadConfig()
      const reports = await versionsReport(routedReader(config), config.CLICKHOUSE_DATABASE, {
        agentId: options.agent,
        sinceMs: options.since === undefined ? undefined : sinceMs(options.since, Date.now()),
        maxWindowMs,
      })
      process.stdout.write(options.json ? versionsJson(reports) : versionsText(reports))
    })
}
