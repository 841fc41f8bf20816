import { describe, expect, it } from 'vitest'
import { runStartedAt } from './first-conversation.ts'
import { exampleQuery, renderFirstConversation, renderNextSteps } from './next-steps.ts'

const steps = {
  repoDir: '/home/me/voice-analytics',
  ingressPort: 8080,
  localWebhookToken: 'made-up+secret/1',
  webhookSource: 'local',
  workerMetricsUrl: 'http://127.0.0.1:9464',
  assemblerMetricsUrl: 'http://127.0.0.1:9466',
  database: 'voice_analytics',
  overviewUrl: 'http://127.0.0.1:8124/',
  prometheusUrl: 'http://127.0.0.1:9090',
  alertmanagerUrl: 'http://127.0.0.1:9095',
}

describe('renderNextSteps', () => {
  it('gives the webhook URL with its token, send and query commands, metrics and Grafana', () => {
    const text = renderNextSteps(steps)
    expect(text).toContain(
      'webhook URL  http://localhost:8080/webhooks/conversation-complete?token=made-up%2Bsecret%2F1',
    )
    expect(text).toMatch(/^ {2}send {9}\.\/run send --fixture full$/m)
    expect(text).toContain(`./run query "${exampleQuery('voice_analytics')}"`)
    expect(text).toContain(
      'http://localhost:8080/metrics (ingress), http://127.0.0.1:9464/metrics (worker), http://127.0.0.1:9466/metrics (assembler)',
    )
    expect(text).toMatch(
      /^ {2}OTLP traces {2}http:\/\/localhost:8080\/v1\/traces\?token=made-up%2Bsecret%2F1 /m,
    )
    expect(text).toContain('http://localhost:3000')
    expect(text).toContain('/home/me/voice-analytics')
    expect(text).toMatch(/^ {2}overview {5}http:\/\/127\.0\.0\.1:8124\/ \(latency/m)
  })
  it('names no overview page when there is none (an external ClickHouse has no local endpoint)', () => {
    expect(renderNextSteps({ ...steps, overviewUrl: undefined })).not.toContain('overview')
  })
  it('gives the Alertmanager and Prometheus URLs, or one line saying alerting is not running', () => {
    expect(renderNextSteps(steps)).toMatch(
      /^ {2}alerts {7}http:\/\/127\.0\.0\.1:9095 \(Alertmanager; .*\), http:\/\/127\.0\.0\.1:9090 \(Prometheus\)$/m,
    )
    const off = renderNextSteps({ ...steps, prometheusUrl: undefined, alertmanagerUrl: undefined })
    expect(off.match(/^ {2}alerts .*$/gm)).toEqual([
      '  alerts       not running (Prometheus and Alertmanager missing or not started: see above, docs/alerting.md)',
    ])
  })
  it('never prints a configured secret (send reads WEBHOOK_SECRETS itself), and passes another port', () => {
    const text = renderNextSteps({
      ...steps,
      ingressPort: 18080,
      localWebhookToken: undefined,
      webhookSource: 'prod',
    })
    expect(text).toContain('?token=<the prod secret of WEBHOOK_SECRETS>')
    expect(text).toMatch(/^ {2}send {9}\.\/run send --fixture full --url http:\/\/localhost:18080$/m)
  })
})

describe('time to the first conversation', () => {
  it('counts from the start of ./run when it passed a valid time, else from the process start', () => {
    const now = Date.now()
    expect(runStartedAt({ VA_RUN_STARTED_MS: String(now - 5_000) }, now - 1_000)).toEqual({
      at: now - 5_000,
      since: 'run',
    })
    expect(runStartedAt({}, now - 1_000)).toEqual({ at: now - 1_000, since: 'process' })
    expect(runStartedAt({ VA_RUN_STARTED_MS: 'soon' }, now - 1_000).since).toBe('process')
    expect(runStartedAt({ VA_RUN_STARTED_MS: String(now + 60_000) }, now - 1_000).since).toBe('process')
  })
  it('says the seconds and from when', () => {
    expect(renderFirstConversation(12_345, 'run')).toContain(
      'first conversation stored 12.3 s after `./run dev` started',
    )
  })
})
