// What `./run dev` prints once the pipeline runs: where to send, a command that sends, one that
// reads back, where the metrics are. Pure (the text only), so it is tested as text; the commands
// go through ./run, which brings its own Node 24, so they work as printed in any shell.
export interface NextSteps {
  /** The repository checkout the commands run in. */
  repoDir: string
  ingressPort: number
  /**
   * The local made-up webhook secret (kept in the state directory, where `send` finds it), shown in
   * the URL; undefined when WEBHOOK_SECRETS is configured: a configured secret is never printed, and
   * `send` reads it from WEBHOOK_SECRETS itself.
   */
  localWebhookToken: string | undefined
  /** The source name of the configured secret, for the placeholder in the URL. */
  webhookSource: string
  workerMetricsUrl: string | undefined
  assemblerMetricsUrl: string | undefined
  database: string
  /** The overview page of the local SQL endpoint; undefined with an external ClickHouse (no endpoint). */
  overviewUrl: string | undefined
  /** The local Prometheus and Alertmanager (`./run dev` starts them when installed); undefined: not running. */
  prometheusUrl: string | undefined
  alertmanagerUrl: string | undefined
}

export const exampleQuery = (database: string) =>
  `SELECT session_id, agent_name, item_count, received_at FROM ${database}.conversations ORDER BY received_at DESC LIMIT 5`

export function renderNextSteps(steps: NextSteps): string {
  const ingress = `http://localhost:${steps.ingressPort}`
  const url = steps.ingressPort === 8080 ? '' : ` --url ${ingress}`
  const token = steps.localWebhookToken
    ? encodeURIComponent(steps.localWebhookToken)
    : `<the ${steps.webhookSource} secret of WEBHOOK_SECRETS>`
  const lines = [
    '',
    'voice-analytics is running: ingress, assembler, worker, ClickHouse. In another terminal, in',
    `${steps.repoDir}:`,
    '',
    `  webhook URL  ${ingress}/webhooks/conversation-complete?token=${token}`,
    `  OTLP traces  ${ingress}/v1/traces?token=${token}    (LiveKit Agents, Pipecat: docs/otlp.md §9.2)`,
    `  send         ./run send --fixture full${url}`,
    `               ./run send --generate 200${url}    (synthetic conversations of the last day)`,
    `  query        ./run query "${exampleQuery(steps.database)}"`,
    ...(steps.overviewUrl
      ? [`  overview     ${steps.overviewUrl} (latency, failed rooms, campaigns, tests; in a browser)`]
      : []),
    `  metrics      ${ingress}/metrics (ingress)${steps.workerMetricsUrl ? `, ${steps.workerMetricsUrl}/metrics (worker)` : ''}${steps.assemblerMetricsUrl ? `, ${steps.assemblerMetricsUrl}/metrics (assembler)` : ''}`,
    ...(steps.prometheusUrl && steps.alertmanagerUrl
      ? [
          `  alerts       ${steps.alertmanagerUrl} (Alertmanager; receivers from ALERT_*, docs/alerting.md), ${steps.prometheusUrl} (Prometheus)`,
        ]
      : [
          '  alerts       not running (Prometheus and Alertmanager missing or not started: see above, docs/alerting.md)',
        ]),
    '  Grafana      http://localhost:3000 (admin/admin) runs with `docker compose up`, not with ./run dev',
    '  stop         Ctrl-C',
    '',
  ]
  return `${lines.join('\n')}\n`
}

/** "first conversation stored 12.3 s after `./run dev` started". */
export function renderFirstConversation(elapsedMs: number, since: 'run' | 'process'): string {
  const from = since === 'run' ? '`./run dev` started' : 'this process started'
  return `\nfirst conversation stored ${(elapsedMs / 1000).toFixed(1)} s after ${from}\n\n`
}
