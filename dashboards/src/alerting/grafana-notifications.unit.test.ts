import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { alertSettingsFromEnv } from './alertmanager-config.ts'
import { renderGrafanaNotifications } from './grafana-notifications.ts'

// Grafana's contact points and policy (compose) from the same ALERT_* variables as Alertmanager.
interface Provisioning {
  apiVersion: number
  templates?: { name: string; template: string }[]
  contactPoints?: {
    name: string
    receivers: { uid: string; type: string; settings: Record<string, unknown> }[]
  }[]
  policies?: {
    receiver: string
    group_by: string[]
    group_wait: string
    routes: { receiver: string; object_matchers: string[][] }[]
  }[]
}
const render = (env: Record<string, string>) =>
  parse(renderGrafanaNotifications(alertSettingsFromEnv(env))) as Provisioning

describe('renderGrafanaNotifications', () => {
  it('provisions nothing when no channel is set (Grafana keeps its defaults)', () => {
    expect(render({})).toEqual({ apiVersion: 1 })
  })

  it('pages critical rules and sends warnings to Slack, grouped like Alertmanager', () => {
    const provisioning = render({
      ALERT_WEBHOOK_URL: 'https://pager.example/hook',
      ALERT_WEBHOOK_BEARER_TOKEN: 'token-1',
      ALERT_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/x',
      ALERT_EMAIL_TO: 'oncall@example.com',
      ALERT_SMTP_FROM: 'alerts@example.com',
      ALERT_SMTP_SMARTHOST: 'smtp.example.com:587',
    })
    expect(
      provisioning.contactPoints?.map((point) => [point.name, point.receivers.map((r) => r.type)]),
    ).toEqual([
      ['voice-analytics-pager', ['webhook', 'email', 'slack']],
      ['voice-analytics-chat', ['slack']],
    ])
    expect(provisioning.contactPoints?.[0]?.receivers[0]?.settings).toEqual({
      url: 'https://pager.example/hook',
      httpMethod: 'POST',
      authorization_scheme: 'Bearer',
      authorization_credentials: 'token-1',
    })
    const [policy] = provisioning.policies!
    expect(policy!.group_by).toEqual(['grafana_folder', 'alertname', 'agent', 'campaign', 'telecom_provider'])
    expect(policy!.group_wait).toBe('20s')
    expect(policy!.routes).toEqual([
      { receiver: 'voice-analytics-pager', object_matchers: [['severity', '=', 'critical']] },
      { receiver: 'voice-analytics-chat', object_matchers: [['severity', '=', 'warning']] },
    ])
    expect(provisioning.templates?.[0]?.template).toContain('runbook: {{ .Annotations.runbook_url }}')
  })

  it('without Slack, warnings go to the pager channels (Grafana holds no empty contact point)', () => {
    const provisioning = render({ ALERT_WEBHOOK_URL: 'https://pager.example/hook' })
    expect(provisioning.contactPoints?.map((point) => point.name)).toEqual(['voice-analytics-pager'])
    expect(provisioning.policies?.[0]?.receiver).toBe('voice-analytics-pager')
    expect(provisioning.policies?.[0]?.routes[1]?.receiver).toBe('voice-analytics-pager')
  })
})
