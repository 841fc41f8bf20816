import type { Command } from 'commander'
import { withoutQuery } from '../../core/runtime/logger.ts'
import { callPlatformApi } from '../platform/api-client.ts'
import { checkIngressTransport, ingressWebhookUrl } from '../platform/ingress-url.ts'
import { openPlatformSession } from '../platform/session.ts'
import { addWebhookRecord, readWebhookRecords } from '../platform/webhook-records.ts'
import { webhookIdOf, webhookRequestBody } from '../platform/webhook-request.ts'
import { environmentOptionHelp } from './auth.ts'

// `webhooks register | list`: register the ingress URL with the platform (POST /api/Webhooks)
// and keep a local record. The ingress token is never printed: URLs are shown without query.

const collect = (value: string, previous: string[]) => [...previous, value]

export function registerWebhooksCommand(program: Command): void {
  const webhooks = program.command('webhooks').description('webhooks the platform sends conversations to')

  webhooks
    .command('register')
    .description('register an ingress URL as a webhook with the platform; prints the webhook id')
    .requiredOption('--url <url>', 'ingress URL; a bare origin gets the path /webhooks/conversation-complete')
    .option(
      '--token-from <source>',
      "add ?token= with this source's secret from WEBHOOK_SECRETS (source=secret,...)",
    )
    .option('--field <key=value>', 'extra body field, repeatable; overrides --body-json', collect, [])
    .option('--body-json <json>', 'JSON object merged into the request body (after url)')
    .option(
      '--insecure',
      'allow an http:// URL to a loopback ingress (local testing; the token is sent in clear)',
    )
    .option('--env <name>', environmentOptionHelp)
    .action(
      async (options: {
        url: string
        tokenFrom?: string
        field: string[]
        bodyJson?: string
        insecure?: boolean
        env?: string
      }) => {
        const url = ingressWebhookUrl(options.url, {
          ...(options.tokenFrom ? { source: options.tokenFrom } : {}),
          webhookSecrets: process.env.WEBHOOK_SECRETS ?? '',
        })
        const body = webhookRequestBody(url, options.field, options.bodyJson)
        // Checked on the URL actually sent: --field url=... or --body-json may replace --url.
        checkIngressTransport(typeof body.url === 'string' ? body.url : url, options.insecure === true)
        const session = await openPlatformSession(options.env)
        const id = webhookIdOf(await callPlatformApi(session, 'POST', '/api/Webhooks', body))
        await addWebhookRecord(session.webhookRecordsFile, {
          id,
          url: typeof body.url === 'string' ? body.url : url,
          ...(options.tokenFrom ? { source: options.tokenFrom } : {}),
          registeredAt: new Date(),
        })
        process.stderr.write(
          `Registered webhook for ${withoutQuery(url)} with "${session.environment.name}"\n`,
        )
        process.stdout.write(`${id}\n`)
      },
    )

  webhooks
    .command('list')
    .description('the webhooks registered from this machine (local record)')
    .option('--env <name>', environmentOptionHelp)
    .action(async (options: { env?: string }) => {
      const session = await openPlatformSession(options.env)
      const records = await readWebhookRecords(session.webhookRecordsFile)
      if (records.length === 0)
        process.stderr.write(`No webhooks registered with "${session.environment.name}" from here\n`)
      for (const record of records) {
        process.stdout.write(
          `${record.id}  ${record.registered_at}  ${record.url}${record.source ? `  (${record.source})` : ''}\n`,
        )
      }
    })
}
