import { stringify } from 'yaml'

// Alertmanager's configuration, built from the environment by pure functions: which receivers
// exist (each off unless its ALERT_* variable is set), how alerts are grouped, routed by severity
// and inhibited while the pipeline itself is down. The rendered text holds secrets (webhook URLs,
// the SMTP password): the caller writes it 0600 and never prints it. Template:
// dashboards/alertmanager/templates/voice-analytics.tmpl; operators' reading: docs/alerting.md.

export interface EmailSettings {
  to: string
  from: string
  /** host:port of the SMTP server. */
  smarthost: string
  authUsername: string | undefined
  authPassword: string | undefined
  requireTls: boolean
}

export interface AlertTiming {
  groupWait: string
  groupInterval: string
  repeatInterval: string
}

export interface AlertmanagerSettings {
  webhookUrl: string | undefined
  /**
   * Sent as `Authorization: Bearer`: Alertmanager 0.25 masks it in its API and logs, but not the
   * webhook URL itself (a failed delivery logs it), so a token belongs here, not in the URL.
   */
  webhookBearerToken: string | undefined
  slackWebhookUrl: string | undefined
  slackChannel: string | undefined
  email: EmailSettings | undefined
  /** Base URLs the message links to (the overview page, Grafana) and runbook paths are joined to. */
  overviewUrl: string
  grafanaUrl: string
  runbookBaseUrl: string
  timing: AlertTiming
}

/**
 * Shipped timing. Time to alert = scrape (15 s) + evaluation (15 s) + the rule's `for:` (none for
 * failed rooms) + group_wait: at worst ~50 s, under the 60 s target (bench/results/alerting.md).
 * group_wait 20 s lets a burst's other alerts join the first notification; group_interval 5 m
 * holds changes to a group (new agents, resolutions) to one message per 5 minutes; repeat 4 h
 * reminds of what still fires without paging all night.
 */
export const shippedTiming: AlertTiming = { groupWait: '20s', groupInterval: '5m', repeatInterval: '4h' }

/** Labels one notification is about: an alert for one agent, campaign or telecom provider. */
export const groupBy = ['alertname', 'agent', 'campaign', 'telecom_provider'] as const

/** The pipeline alerts that make the domain alerts wrong while they fire (no data flows). */
export const pipelineDownAlerts = [
  'IngressDown',
  'WorkerDown',
  'WorkerStalled',
  'WorkerNotConsuming',
  'WorkerClickHouseFailing',
  'WorkerSchemaRegistryFailing',
] as const

/** The domain alerts held back meanwhile: failed rooms and latency, judged on data that stopped. */
export const domainAlertPattern = 'VoiceAgentFailedRooms|VoiceAgentSlow.*|Voice.*LatencyPercentileHigh'

const durationPattern = /^[0-9]+(ms|s|m|h)$/

export class AlertConfigError extends Error {}

function optional(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name]?.trim()
  return value ? value : undefined
}

function httpUrl(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = optional(env, name)
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    // The value may be a secret (a webhook URL with its token): name the variable, not the value.
    throw new AlertConfigError(`${name} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AlertConfigError(`${name} must be an http:// or https:// URL`)
  return value
}

function duration(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const value = optional(env, name) ?? fallback
  if (!durationPattern.test(value))
    throw new AlertConfigError(`${name} must be a duration such as 30s, 5m or 4h (got ${value})`)
  return value
}

function emailFromEnv(env: Record<string, string | undefined>): EmailSettings | undefined {
  const to = optional(env, 'ALERT_EMAIL_TO')
  if (to === undefined) return undefined
  const from = optional(env, 'ALERT_SMTP_FROM')
  const smarthost = optional(env, 'ALERT_SMTP_SMARTHOST')
  if (!from) throw new AlertConfigError('ALERT_EMAIL_TO is set: ALERT_SMTP_FROM is required too')
  if (!smarthost || !/^[^:\s]+:[0-9]+$/.test(smarthost))
    throw new AlertConfigError('ALERT_EMAIL_TO is set: ALERT_SMTP_SMARTHOST must be host:port')
  const requireTls = optional(env, 'ALERT_SMTP_REQUIRE_TLS') ?? 'true'
  if (requireTls !== 'true' && requireTls !== 'false')
    throw new AlertConfigError('ALERT_SMTP_REQUIRE_TLS must be true or false')
  return {
    to,
    from,
    smarthost,
    authUsername: optional(env, 'ALERT_SMTP_AUTH_USERNAME'),
    authPassword: optional(env, 'ALERT_SMTP_AUTH_PASSWORD'),
    requireTls: requireTls === 'true',
  }
}

/** Reads and checks the ALERT_* variables; a bad one throws, naming it (never echoing a secret). */
export function alertSettingsFromEnv(env: Record<string, string | undefined>): AlertmanagerSettings {
  return {
    webhookUrl: httpUrl(env, 'ALERT_WEBHOOK_URL'),
    webhookBearerToken: optional(env, 'ALERT_WEBHOOK_BEARER_TOKEN'),
    slackWebhookUrl: httpUrl(env, 'ALERT_SLACK_WEBHOOK_URL'),
    slackChannel: optional(env, 'ALERT_SLACK_CHANNEL'),
    email: emailFromEnv(env),
    overviewUrl: httpUrl(env, 'ALERT_OVERVIEW_URL') ?? 'http://127.0.0.1:8124/',
    grafanaUrl: httpUrl(env, 'ALERT_GRAFANA_URL') ?? 'http://localhost:3000',
    runbookBaseUrl: optional(env, 'ALERT_RUNBOOK_BASE_URL') ?? '',
    timing: {
      groupWait: duration(env, 'ALERT_GROUP_WAIT', shippedTiming.groupWait),
      groupInterval: duration(env, 'ALERT_GROUP_INTERVAL', shippedTiming.groupInterval),
      repeatInterval: duration(env, 'ALERT_REPEAT_INTERVAL', shippedTiming.repeatInterval),
    },
  }
}

/** Names of the receivers that are on, for a start-up line that shows no secret. */
export function enabledChannels(settings: AlertmanagerSettings): string[] {
  return [
    ...(settings.webhookUrl ? ['webhook'] : []),
    ...(settings.slackWebhookUrl ? ['slack'] : []),
    ...(settings.email ? ['email'] : []),
  ]
}

const title = '{{ template "voice_analytics.title" . }}'
const text = '{{ template "voice_analytics.text" . }}'

function slackConfigs(settings: AlertmanagerSettings) {
  if (!settings.slackWebhookUrl) return {}
  return {
    slack_configs: [
      {
        api_url: settings.slackWebhookUrl,
        ...(settings.slackChannel ? { channel: settings.slackChannel } : {}),
        send_resolved: true,
        title,
        text,
      },
    ],
  }
}

function webhookConfigs(settings: AlertmanagerSettings) {
  if (!settings.webhookUrl) return {}
  const authorization = settings.webhookBearerToken
    ? { http_config: { authorization: { type: 'Bearer', credentials: settings.webhookBearerToken } } }
    : {}
  return {
    webhook_configs: [{ url: settings.webhookUrl, send_resolved: true, max_alerts: 0, ...authorization }],
  }
}

function emailConfigs(settings: AlertmanagerSettings) {
  const email = settings.email
  if (!email) return {}
  return {
    email_configs: [
      {
        to: email.to,
        from: email.from,
        smarthost: email.smarthost,
        require_tls: email.requireTls,
        ...(email.authUsername ? { auth_username: email.authUsername } : {}),
        ...(email.authPassword ? { auth_password: email.authPassword } : {}),
        send_resolved: true,
        headers: { Subject: title },
        text,
        html: `<pre>${text}</pre>`,
      },
    ],
  }
}

/**
 * alertmanager.yml. `templateFiles` are the paths Alertmanager reads templates from (the shared
 * message template and the links template of renderLinksTemplate, where this config lives).
 * Critical alerts page (`pager`: the webhook, e-mail and Slack); warnings go to chat (`chat`:
 * Slack). A receiver with no channel set is valid and delivers nothing.
 */
export function renderAlertmanagerConfig(settings: AlertmanagerSettings, templateFiles: string[]): string {
  const { timing } = settings
  const config = {
    templates: templateFiles,
    route: {
      receiver: 'chat',
      group_by: [...groupBy],
      group_wait: timing.groupWait,
      group_interval: timing.groupInterval,
      repeat_interval: timing.repeatInterval,
      routes: [
        { receiver: 'pager', matchers: ['severity="critical"'] },
        { receiver: 'chat', matchers: ['severity="warning"'] },
      ],
    },
    inhibit_rules: [
      {
        source_matchers: [`alertname=~"${pipelineDownAlerts.join('|')}"`],
        target_matchers: [`alertname=~"${domainAlertPattern}"`],
      },
    ],
    receivers: [
      { name: 'pager', ...webhookConfigs(settings), ...emailConfigs(settings), ...slackConfigs(settings) },
      { name: 'chat', ...slackConfigs(settings) },
    ],
  }
  return `# Rendered by dashboards/src/alerting/alertmanager-config.ts from the ALERT_* variables: do not edit.\n${stringify(config)}`
}

/** Go templates are text: a value put into one must not open an action. */
function templateLiteral(value: string): string {
  return `{{ \`${value.replaceAll('`', '%60')}\` }}`
}

/** The links template: where the message's links point, from the environment. */
export function renderLinksTemplate(settings: AlertmanagerSettings): string {
  const trimmed = (url: string) => url.replace(/\/+$/, '')
  return [
    '{{/* Rendered by dashboards/src/alerting/alertmanager-config.ts from ALERT_* variables: do not edit. */}}',
    `{{ define "voice_analytics.overview_url" }}${templateLiteral(settings.overviewUrl)}{{ end }}`,
    `{{ define "voice_analytics.grafana_url" }}${templateLiteral(trimmed(settings.grafanaUrl))}{{ end }}`,
    `{{ define "voice_analytics.runbook_base_url" }}${templateLiteral(settings.runbookBaseUrl)}{{ end }}`,
    '',
  ].join('\n')
}
