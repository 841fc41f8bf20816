import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { localStateDir, readLocalSecret } from '../../core/secrets/local-secret.ts'
import { parseWebhookSecrets } from '../../core/secrets/webhook-secrets.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { movedToLastDay } from '../send/fixture-dates.ts'
import { generatedSpan } from '../send/generated-span.ts'
import { otlpBodies } from '../send/otlp-bodies.ts'
import { sendWebhooks } from '../send/webhook-sender.ts'

// `voice-analytics send`: posts fixture files or generated conversations to an ingress, as webhooks
// or (--as-otlp) as the OpenTelemetry traces LiveKit Agents would export for them.
// The token comes from --token, from WEBHOOK_SECRETS (by --source), else from the secret that
// `npm run dev` made up and keeps in the state directory (so its printed command works as is);
// it is never printed.
const fixturesDir = new URL('../../test/fixtures/', import.meta.url)

function readEvents(file: string): unknown[] {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
  return Array.isArray(parsed) ? parsed : [parsed]
}

/** The name under which `npm run dev` keeps the webhook secret it made up (dev-server/main.ts). */
export const devWebhookSecretName = 'webhook-secret'

async function webhookToken(source: string | undefined): Promise<string> {
  const secrets = parseWebhookSecrets(loadConfig().WEBHOOK_SECRETS)
  if (secrets.length === 0 && !source) {
    const local = await readLocalSecret(localStateDir(), devWebhookSecretName)
    if (local) return local
  }
  const secret = source ? secrets.find((candidate) => candidate.source === source) : secrets[0]
  if (!secret)
    throw new Error(
      source
        ? `WEBHOOK_SECRETS has no source named ${source}`
        : 'give --token or set WEBHOOK_SECRETS (source=secret); `npm run dev` started here without WEBHOOK_SECRETS makes up one that send finds by itself',
    )
  return secret.secret
}

interface SendFlags {
  url?: string
  token?: string
  source?: string
  file: string[]
  fixture: string[]
  asRecorded?: boolean
  generate?: string
  from?: string
  days?: string
  seed: string
  historyItems: string
  concurrency: string
  rate: string
  asOtlp?: boolean
}

export function registerSendCommand(program: Command): void {
  program
    .command('send')
    .description('post conversations (files, fixtures or generated) to an ingress')
    .option('--url <url>', 'ingress base URL (default http://localhost:$INGRESS_PORT)')
    .option(
      '--token <secret>',
      'webhook token (default: from WEBHOOK_SECRETS, else the one `npm run dev` made up here)',
    )
    .option('--source <name>', 'which WEBHOOK_SECRETS entry to use (default: the first)')
    .option('--file <path...>', 'JSON files, each one event or an array of events', [])
    .option(
      '--fixture <name...>',
      'fixtures from test/fixtures by name (e.g. campaign-call), moved by whole days to the last day',
      [],
    )
    .option('--as-recorded', 'send the fixtures with their own dates (June 2025), not moved to the last day')
    .option('--generate <count>', 'generate this many synthetic conversations, over the last day by default')
    .option('--from <date>', 'generated conversations start at this date (e.g. 2025-06-01): a history')
    .option('--days <n>', 'days the generated conversations are spread over', '1')
    .option('--seed <n>', 'generator seed', '1')
    .option('--history-items <n>', 'history items per generated conversation', '40')
    .option('--concurrency <n>', 'requests in flight', '8')
    .option('--rate <perSecond>', 'events per second at most (0 = no limit)', '0')
    .option(
      '--as-otlp',
      'send each conversation as LiveKit Agents 1.7 would trace it: OTLP/HTTP JSON export requests to /v1/traces (docs/otlp.md)',
    )
    .action(async (flags: SendFlags) => {
      const now = Date.now()
      const fixtures = flags.fixture
        .flatMap((name) => readEvents(new URL(`${name}.json`, fixturesDir).pathname))
        .map((event) => (flags.asRecorded ? { event, days: 0 } : movedToLastDay(event, now)))
      const moved = Math.max(0, ...fixtures.map(({ days }) => days))
      if (moved > 0)
        console.log(`fixtures moved ${moved} days forward, to the last day (--as-recorded: as written)`)
      const events: unknown[] = [...flags.file.flatMap(readEvents), ...fixtures.map(({ event }) => event)]
      if (flags.generate)
        events.push(
          ...generateConversations({
            count: Number(flags.generate),
            seed: Number(flags.seed),
            historyItems: Number(flags.historyItems),
            ...generatedSpan({ from: flags.from, days: flags.days }, now),
          }),
        )
      if (events.length === 0) throw new Error('nothing to send: give --file, --fixture or --generate')
      const base = (flags.url ?? `http://localhost:${loadConfig().INGRESS_PORT}`).replace(/\/$/, '')
      const token = encodeURIComponent(flags.token ?? (await webhookToken(flags.source)))
      const url = `${base}/webhooks/conversation-complete?token=${token}`
      const bodies = flags.asOtlp
        ? otlpBodies(events as ConversationCompleteEvent[], `${base}/v1/traces?token=${token}`)
        : events.map((event) => JSON.stringify(event))
      const summary = await sendWebhooks(bodies, {
        url,
        concurrency: Number(flags.concurrency),
        ratePerSecond: Number(flags.rate),
      })
      if (flags.asOtlp) console.log(`${events.length} conversations as ${bodies.length} OTLP export requests`)
      const statuses = Object.entries(summary.byStatus)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ')
      console.log(
        `sent ${summary.sent} in ${summary.seconds.toFixed(2)} s (${(summary.sent / summary.seconds).toFixed(0)}/s) — ${statuses}`,
      )
      for (const error of summary.firstErrors) console.error(`  ${error}`)
      const accepted = flags.asOtlp ? '200' : '202'
      if (Object.keys(summary.byStatus).some((status) => status !== accepted)) process.exitCode = 1
    })
}
