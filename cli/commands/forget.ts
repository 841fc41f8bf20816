import { createInterface } from 'node:readline/promises'
import type { Command } from 'commander'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { topics } from '../../core/kafka/topics.ts'
import {
  type ErasureAnswer,
  type ErasureCall,
  runErasureCall,
} from '../../core/privacy/erasure/erasure-call.ts'
import {
  ErasureRequestError,
  messageNeedles,
  type SelectorOptions,
  selectorFromOptions,
} from '../../core/privacy/erasure/erasure-selector.ts'
import type { ErasureAuditRow, ForgetReport } from '../../core/privacy/erasure/forget-conversations.ts'
import { searchTopics } from '../../core/privacy/erasure/topic-search.ts'
import { type Config, loadConfig } from '../../core/settings/env.ts'
import { writeRouted } from '../dev-endpoint/clickhouse-route.ts'

// `forget`: erase a caller everywhere (core/privacy/erasure, docs/privacy.md). Shows what it
// will remove and asks (or --yes), removes, searches every table and the DLQ and quarantine topics
// again, and says "nothing left" or what remains and why. --dry-run only counts; --status lists the
// audit. With CLICKHOUSE_URL it runs beside the workers; with the embedded engine, through a
// running `./run dev`'s endpoint (which holds the data directory, and tells its worker at once),
// else on the data directory itself.
interface ForgetOptions extends SelectorOptions {
  yes?: boolean
  dryRun?: boolean
  status?: boolean
}

/** One call (erasure-call.ts): through `./run dev`'s endpoint when it runs, else on a client of its own. */
async function erasureCall(config: Config, call: ErasureCall): Promise<ErasureAnswer> {
  const answer = await writeRouted(config, '/forget', JSON.stringify(call), async (client) => {
    await runMigrations(client, config.CLICKHOUSE_DATABASE, undefined, config.CLICKHOUSE_CLUSTER) // the audit tables, on a database older than them
    return JSON.stringify(await runErasureCall(client, config, call))
  })
  return JSON.parse(answer) as ErasureAnswer // as JSON: its times are strings
}
const reportOf = (answer: ErasureAnswer): ForgetReport => (answer as { report: ForgetReport }).report

const table = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([, rows]) => rows > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, rows]) => `  ${name.padEnd(44)} ${rows}`)
    .join('\n')

async function confirmed(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim())
  } finally {
    prompt.close()
  }
}

export function registerForgetCommand(program: Command): void {
  program
    .command('forget')
    .description("erase a caller's conversations from every table, record it, and verify nothing is left")
    .option(
      '--phone <number>',
      'from_number or to_number, in any formatting (also its HMAC under PII_HMAC_KEY)',
    )
    .option('--session-id <id>', 'one conversation')
    .option('--call-sid <sid>', "the telephony provider's call SID")
    .option('--agent <agent_id>', "an agent's conversations in --from..--to")
    .option('--from <time>', 'start of the range (ISO 8601), with --agent')
    .option('--to <time>', 'end of the range (ISO 8601, excluded), with --agent')
    .option('--dry-run', 'only count what would be removed')
    .option('--yes', 'remove without asking')
    .option('--status', 'list the erasures recorded (the audit), newest first')
    .action(async (options: ForgetOptions) => {
      const config = loadConfig()
      if (options.status) {
        const { status } = (await erasureCall(config, { status: true })) as { status: ErasureAuditRow[] }
        for (const row of status)
          process.stdout.write(
            `${row.requested_at}  ${row.erasure_id}  ${row.selector_kind} ${row.selector_hash.slice(0, 16)}…  ` +
              `${row.conversations} conversation(s)  verified ${row.verified_at ?? 'not yet'}: ${row.verification}\n`,
          )
        return
      }
      let selector: ReturnType<typeof selectorFromOptions>
      try {
        selector = selectorFromOptions(options)
      } catch (error) {
        if (error instanceof ErasureRequestError) program.error(`forget: ${error.message}`)
        throw error
      }
      const { phone, sessionId, callSid, agent, from, to } = options
      const request = {
        selector: { phone, sessionId, callSid, agent, from, to },
        command: `voice-analytics forget --${selector.kind.replace('_range', '').replace('_', '-')}`,
      }
      const preview = reportOf(await erasureCall(config, { ...request, dryRun: true }))
      process.stdout.write(
        `${preview.sessionIds.length} conversation(s) of this caller; rows to remove:\n${table(preview.found) || '  none'}\n`,
      )
      if (options.dryRun || preview.sessionIds.length === 0) return
      if (!options.yes && !(await confirmed('remove them? [y/N] '))) {
        process.stdout.write('nothing removed (answer y, or pass --yes)\n')
        process.exitCode = 1
        return
      }
      const report = reportOf(await erasureCall(config, { ...request, dryRun: false }))
      process.stdout.write(`erasure ${report.erasureId}: removed\n${table(report.removed) || '  none'}\n`)
      process.stdout.write(`tables: ${report.verification}\n`)
      const found = await searchTopics(
        { brokers: config.KAFKA_BROKERS, clientId: `${config.KAFKA_CLIENT_ID}-forget` },
        [config.WORKER_DLQ_TOPIC, topics.quarantine],
        messageNeedles(selector, report.sessionIds, config.PII_HMAC_KEY),
      )
      if (found.length === 0) process.stdout.write('topics: nothing in the DLQ or the quarantine topic\n')
      for (const match of found)
        process.stdout.write(
          `topics: ${match.topic} partition ${match.partition} offset ${match.offset} holds this caller's message; ` +
            `Kafka cannot remove one message: its retention removes it by ${
              match.removedByMs === undefined
                ? 'never (no time retention)'
                : new Date(match.removedByMs).toISOString()
            }\n`,
        )
      process.stdout.write(
        `topics: ${config.WORKER_TOPIC} keeps raw events for its retention (KAFKA_RETENTION_HOURS when created); ` +
          'a re-delivery or replay of a forgotten conversation is not stored again\n',
      )
    })
}
