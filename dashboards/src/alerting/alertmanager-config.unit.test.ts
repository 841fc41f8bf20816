import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { findBinary } from '../../../test/observability/promtool.ts'
import { writeAlertmanagerConfig } from './alerting-config-files.ts'
import {
  alertSettingsFromEnv,
  enabledChannels,
  renderAlertmanagerConfig,
  renderLinksTemplate,
  shippedTiming,
} from './alertmanager-config.ts'

// The rendered Alertmanager configuration: receivers only where their variables are set, bad
// variables named (never echoed), routing, grouping and inhibition as docs/alerting.md says —
// checked by Debian's amtool itself (check-config, config routes test).
const scratch = mkdtempSync(join(tmpdir(), 'va-alertmanager-config-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const everything = {
  ALERT_WEBHOOK_URL: 'https://pager.example/hook',
  ALERT_WEBHOOK_BEARER_TOKEN: 'webhook-token-123',
  ALERT_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/slack-secret-456',
  ALERT_SLACK_CHANNEL: '#voice-alerts',
  ALERT_EMAIL_TO: 'oncall@example.com',
  ALERT_SMTP_FROM: 'alerts@example.com',
  ALERT_SMTP_SMARTHOST: 'smtp.example.com:587',
  ALERT_SMTP_AUTH_USERNAME: 'alerts',
  ALERT_SMTP_AUTH_PASSWORD: 'smtp-password-789',
}

interface Receiver {
  name: string
  webhook_configs?: { url: string; send_resolved: boolean }[]
  slack_configs?: { api_url: string; channel?: string; send_resolved: boolean; text: string }[]
  email_configs?: { to: string; auth_password?: string; send_resolved: boolean }[]
}
interface Rendered {
  templates: string[]
  route: {
    receiver: string
    group_by: string[]
    group_wait: string
    group_interval: string
    repeat_interval: string
    routes: { receiver: string; matchers: string[] }[]
  }
  inhibit_rules: { source_matchers: string[]; target_matchers: string[] }[]
  receivers: Receiver[]
}
const render = (env: Record<string, string>) =>
  parse(renderAlertmanagerConfig(alertSettingsFromEnv(env), ['/t/*.tmpl'])) as Rendered
const receiver = (config: Rendered, name: string) => config.receivers.find((r) => r.name === name)!

function amtool(args: string[]) {
  const result = spawnSync(findBinary('amtool'), args, { encoding: 'utf8' })
  return { status: result.status, stdout: result.stdout, output: `${result.stdout}${result.stderr}` }
}

describe('alertSettingsFromEnv', () => {
  it('turns every channel off when no ALERT_* variable is set, with the shipped timing', () => {
    const settings = alertSettingsFromEnv({})
    expect(enabledChannels(settings)).toEqual([])
    expect(settings.timing).toEqual(shippedTiming)
    expect(settings.overviewUrl).toBe('http://127.0.0.1:8124/')
  })

  it('turns on each channel whose variable is set, and only that one', () => {
    expect(
      enabledChannels(alertSettingsFromEnv({ ALERT_SLACK_WEBHOOK_URL: everything.ALERT_SLACK_WEBHOOK_URL })),
    ).toEqual(['slack'])
    expect(enabledChannels(alertSettingsFromEnv({ ALERT_WEBHOOK_URL: '  ' }))).toEqual([])
    expect(enabledChannels(alertSettingsFromEnv(everything))).toEqual(['webhook', 'slack', 'email'])
  })

  it('names a bad variable without echoing its (secret) value', () => {
    const bad = (env: Record<string, string>) => {
      try {
        alertSettingsFromEnv(env)
      } catch (error) {
        return (error as Error).message
      }
      throw new Error('accepted')
    }
    const message = bad({ ALERT_SLACK_WEBHOOK_URL: 'hooks.slack.com/services/secret-token' })
    expect(message).toBe('ALERT_SLACK_WEBHOOK_URL is not a URL')
    expect(bad({ ALERT_WEBHOOK_URL: 'ftp://x/secret' })).toBe(
      'ALERT_WEBHOOK_URL must be an http:// or https:// URL',
    )
    expect(bad({ ALERT_EMAIL_TO: 'a@b.c', ALERT_SMTP_SMARTHOST: 'smtp:25' })).toContain('ALERT_SMTP_FROM')
    expect(
      bad({ ALERT_EMAIL_TO: 'a@b.c', ALERT_SMTP_FROM: 'x@y.z', ALERT_SMTP_SMARTHOST: 'smtp' }),
    ).toContain('ALERT_SMTP_SMARTHOST must be host:port')
    expect(bad({ ...everything, ALERT_SMTP_REQUIRE_TLS: 'yes' })).toContain('ALERT_SMTP_REQUIRE_TLS')
    expect(bad({ ALERT_GROUP_WAIT: 'soon' })).toContain('ALERT_GROUP_WAIT must be a duration')
  })
})

describe('renderAlertmanagerConfig', () => {
  it('groups by alert and agent, campaign or provider, with the documented timing', () => {
    const { route } = render({})
    expect(route.group_by).toEqual(['alertname', 'agent', 'campaign', 'telecom_provider'])
    expect([route.group_wait, route.group_interval, route.repeat_interval]).toEqual(['20s', '5m', '4h'])
    const fast = render({
      ALERT_GROUP_WAIT: '1s',
      ALERT_GROUP_INTERVAL: '2s',
      ALERT_REPEAT_INTERVAL: '1h',
    }).route
    expect([fast.group_wait, fast.group_interval, fast.repeat_interval]).toEqual(['1s', '2s', '1h'])
  })

  it('pages critical alerts (webhook, e-mail, Slack) and sends warnings to chat (Slack), resolved too', () => {
    const config = render(everything)
    expect(config.route.routes).toEqual([
      { receiver: 'pager', matchers: ['severity="critical"'] },
      { receiver: 'chat', matchers: ['severity="warning"'] },
    ])
    const pager = receiver(config, 'pager')
    expect(pager.webhook_configs).toEqual([
      {
        url: everything.ALERT_WEBHOOK_URL,
        send_resolved: true,
        max_alerts: 0,
        http_config: { authorization: { type: 'Bearer', credentials: 'webhook-token-123' } },
      },
    ])
    expect(pager.email_configs?.[0]).toMatchObject({
      to: 'oncall@example.com',
      auth_password: 'smtp-password-789',
    })
    expect(pager.slack_configs?.[0]).toMatchObject({ channel: '#voice-alerts', send_resolved: true })
    const chat = receiver(config, 'chat')
    expect(chat.slack_configs?.[0]?.api_url).toBe(everything.ALERT_SLACK_WEBHOOK_URL)
    expect(chat.webhook_configs).toBeUndefined()
    expect(chat.email_configs).toBeUndefined()
    for (const r of config.receivers)
      for (const c of [...(r.webhook_configs ?? []), ...(r.slack_configs ?? []), ...(r.email_configs ?? [])])
        expect(c.send_resolved).toBe(true)
  })

  it('leaves receivers empty (delivering nothing) when no channel is set', () => {
    const config = render({})
    expect(config.receivers).toEqual([{ name: 'pager' }, { name: 'chat' }])
  })

  it('holds back failed-room and latency alerts while the pipeline is down or stalled', () => {
    const [rule] = render({}).inhibit_rules
    expect(rule!.source_matchers[0]).toContain('WorkerDown')
    expect(rule!.source_matchers[0]).toContain('IngressDown')
    expect(rule!.source_matchers[0]).toContain('WorkerStalled')
    expect(rule!.target_matchers[0]).toContain('VoiceAgentFailedRooms')
  })

  it('puts the link bases into the links template as literals that cannot open an action', () => {
    const links = renderLinksTemplate(
      alertSettingsFromEnv({
        ALERT_GRAFANA_URL: 'https://grafana.example/',
        ALERT_RUNBOOK_BASE_URL: 'x`{{ y }}',
      }),
    )
    expect(links).toContain(
      '{{ define "voice_analytics.grafana_url" }}{{ `https://grafana.example` }}{{ end }}',
    )
    expect(links).toContain('{{ `x%60{{ y }}` }}')
  })
})

describe('amtool on the rendered configuration', () => {
  const written = writeAlertmanagerConfig(join(scratch, 'all'), everything)

  it('writes alertmanager.yml readable by its owner only', () => {
    expect(statSync(written.configFile).mode & 0o777).toBe(0o600)
  })

  it('check-config accepts it with every channel and with none', () => {
    const none = writeAlertmanagerConfig(join(scratch, 'none'), {})
    for (const file of [written.configFile, none.configFile]) {
      const result = amtool(['check-config', file])
      expect(result.status, result.output).toBe(0)
      expect(result.output).toContain('SUCCESS')
      expect(result.output).toContain('2 templates')
      // amtool's report shows no secret.
      expect(result.output).not.toContain('slack-secret-456')
      expect(result.output).not.toContain('smtp-password-789')
      expect(result.output).not.toContain('webhook-token-123')
    }
  })

  it('check-config refuses a broken configuration (the check can fail)', () => {
    const broken = join(scratch, 'broken.yml')
    writeFileSync(
      broken,
      readFileSync(written.configFile, 'utf8').replace('receiver: pager', 'receiver: nobody'),
    )
    expect(amtool(['check-config', broken]).status).not.toBe(0)
  })

  it('routes by severity as amtool reads the tree', () => {
    const route = (...labels: string[]) =>
      amtool(['config', 'routes', 'test', `--config.file=${written.configFile}`, ...labels]).stdout.trim()
    expect(route('alertname=WorkerDown', 'severity=critical')).toBe('pager')
    expect(route('alertname=VoiceAgentSlowLlm', 'severity=warning', 'agent=Billing')).toBe('chat')
    expect(route('alertname=Unknown')).toBe('chat')
  })
})
