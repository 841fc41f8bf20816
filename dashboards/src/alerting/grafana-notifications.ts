import { stringify } from 'yaml'
import { type AlertmanagerSettings, groupBy } from './alertmanager-config.ts'

// Grafana's contact points and notification policy for its ClickHouse alert rules (compose), from
// the same ALERT_* settings as Alertmanager: critical → `voice-analytics-pager` (webhook, e-mail,
// Slack), warning → `voice-analytics-chat` (Slack), the same grouping and timing. Grafana holds
// no contact point without an integration, so: nothing set → nothing provisioned (Grafana's
// defaults stay); no Slack → warnings go to the pager's channels. Pure; the text holds secrets
// (written 0600 by alerting-config-files.ts). Message: the wording of voice-analytics.tmpl in
// Grafana's template data (.ValueString, .DashboardURL).
const pager = 'voice-analytics-pager'
const chat = 'voice-analytics-chat'

const messageTemplate = `{{ define "voice_analytics.grafana.title" }}[{{ .Status | toUpper }}] {{ .CommonLabels.alertname }}{{ with .CommonLabels.agent }} · agent {{ . }}{{ end }}{{ with .CommonLabels.campaign }} · campaign {{ . }}{{ end }}{{ with .CommonLabels.telecom_provider }} · provider {{ . }}{{ end }}{{ end }}
{{ define "voice_analytics.grafana.text" }}{{ range .Alerts }}
{{ .Status | toUpper }} {{ .Labels.alertname }} ({{ .Labels.severity }}){{ with .Labels.agent }} · agent {{ . }}{{ end }}{{ with .Labels.campaign }} · campaign {{ . }}{{ end }}{{ with .Labels.telecom_provider }} · provider {{ . }}{{ end }}
{{ .Annotations.summary }}
value: {{ .ValueString }}
since: {{ .StartsAt.UTC.Format "2006-01-02 15:04:05 UTC" }}
grafana: {{ with .DashboardURL }}{{ . }}{{ else }}{{ .GeneratorURL }}{{ end }}
runbook: {{ .Annotations.runbook_url }}
{{ end }}{{ end }}`

const title = '{{ template "voice_analytics.grafana.title" . }}'
const text = '{{ template "voice_analytics.grafana.text" . }}'

function pagerReceivers(settings: AlertmanagerSettings) {
  return [
    ...(settings.webhookUrl
      ? [
          {
            uid: 'va-pager-webhook',
            type: 'webhook',
            settings: {
              url: settings.webhookUrl,
              httpMethod: 'POST',
              ...(settings.webhookBearerToken
                ? { authorization_scheme: 'Bearer', authorization_credentials: settings.webhookBearerToken }
                : {}),
            },
          },
        ]
      : []),
    ...(settings.email
      ? [
          {
            uid: 'va-pager-email',
            type: 'email',
            settings: { addresses: settings.email.to, singleEmail: true, subject: title, message: text },
          },
        ]
      : []),
    ...slackReceivers(settings, 'va-pager-slack'),
  ].map((receiver) => ({ ...receiver, disableResolveMessage: false }))
}

function slackReceivers(settings: AlertmanagerSettings, uid: string) {
  if (!settings.slackWebhookUrl) return []
  return [
    {
      uid,
      type: 'slack',
      settings: {
        url: settings.slackWebhookUrl,
        ...(settings.slackChannel ? { recipient: settings.slackChannel } : {}),
        title,
        text,
      },
      disableResolveMessage: false,
    },
  ]
}

/** Grafana provisioning (alerting, apiVersion 1): template, contact points, policy. */
export function renderGrafanaNotifications(settings: AlertmanagerSettings): string {
  const header =
    '# Rendered by dashboards/src/alerting/grafana-notifications.ts from the ALERT_* variables: do not edit.\n'
  const pagers = pagerReceivers(settings)
  if (pagers.length === 0) return `${header}apiVersion: 1\n`
  const chats = slackReceivers(settings, 'va-chat-slack')
  const warningsTo = chats.length > 0 ? chat : pager
  const { timing } = settings
  return `${header}${stringify({
    apiVersion: 1,
    templates: [{ orgId: 1, name: 'voice-analytics', template: messageTemplate }],
    contactPoints: [
      { orgId: 1, name: pager, receivers: pagers },
      ...(chats.length > 0 ? [{ orgId: 1, name: chat, receivers: chats }] : []),
    ],
    policies: [
      {
        orgId: 1,
        receiver: warningsTo,
        group_by: ['grafana_folder', ...groupBy],
        group_wait: timing.groupWait,
        group_interval: timing.groupInterval,
        repeat_interval: timing.repeatInterval,
        routes: [
          { receiver: pager, object_matchers: [['severity', '=', 'critical']] },
          { receiver: warningsTo, object_matchers: [['severity', '=', 'warning']] },
        ],
      },
    ],
  })}`
}
