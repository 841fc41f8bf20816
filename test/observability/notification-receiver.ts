import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

// A tiny HTTP server standing in for the chat tool and the paging webhook: Alertmanager posts to
// /slack (Slack's incoming-webhook body: the rendered message template) and /webhook (its JSON
// of the alerts); every delivery is kept with the time it arrived.
export interface Delivery {
  path: '/slack' | '/webhook'
  at: number
  body: Record<string, unknown>
}

export interface SlackMessage {
  attachments: { title: string; text: string }[]
}

export interface WebhookMessage {
  status: 'firing' | 'resolved'
  groupLabels: Record<string, string>
  alerts: { status: string; labels: Record<string, string> }[]
}

export interface NotificationReceiver {
  url: string
  deliveries: Delivery[]
  slack(): { at: number; title: string; text: string }[]
  webhooks(): (WebhookMessage & { at: number })[]
  close(): Promise<void>
}

export async function startNotificationReceiver(): Promise<NotificationReceiver> {
  const deliveries: Delivery[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url === '/slack' ? '/slack' : '/webhook'
      deliveries.push({ path, at: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      // Slack answers "ok"; Alertmanager's webhook wants any 2xx.
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    slack: () =>
      deliveries
        .filter((delivery) => delivery.path === '/slack')
        .flatMap((delivery) =>
          (delivery.body as unknown as SlackMessage).attachments.map((attachment) => ({
            at: delivery.at,
            title: attachment.title,
            text: attachment.text,
          })),
        ),
    webhooks: () =>
      deliveries
        .filter((delivery) => delivery.path === '/webhook')
        .map((delivery) => ({ ...(delivery.body as unknown as WebhookMessage), at: delivery.at })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
