// What `./run dev` prints once the pipeline runs: where to send, a command that sends, one that
// reads back, where the metrics are. Pure (the text only), so it is tested as text; the commands
// go through ./run, which brings its own Node 24, so they work as printed in any shell.
export interface NextSteps {
  /** The repository checkout the commands run in. */
  repoDir: string
  ingressPort: number
  /** The webhook secret, shown in the URL: the local made-up one, or the one configured for this run. */
  webhookToken: string
  /** Whether `send` finds the token by itself (the made-up one is kept in the state directory). */
  sendFindsToken: boolean
  workerMetricsUrl: string | undefined
  database: string
}

export const exampleQuery = (database: string) =>
  `SELECT session_id, agent_name, item_count, received_at FROM ${database}.conversations ORDER BY received_at DESC LIMIT 5`

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

export function renderNextSteps(steps: NextSteps): string {
  const ingress = `http://localhost:${steps.ingressPort}`
  const url = steps.ingressPort === 8080 ? '' : ` --url ${ingress}`
  const token = steps.sendFindsToken ? '' : ` --token ${shellQuote(steps.webhookToken)}`
  const lines = [
    '',
    'voice-analytics is running: ingress, worker, ClickHouse. In another terminal, in',
    `${steps.repoDir}:`,
    '',
    `  webhook URL  ${ingress}/webhooks/conversation-complete?token=${encodeURIComponent(steps.webhookToken)}`,
    `  send         ./run send --fixture full${url}${token}`,
    `               ./run send --generate 200${url}${token}    (synthetic conversations)`,
    `  query        ./run query "${exampleQuery(steps.database)}"`,
    `  metrics      ${ingress}/metrics (ingress)${steps.workerMetricsUrl ? `, ${steps.workerMetricsUrl}/metrics (worker)` : ''}`,
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
