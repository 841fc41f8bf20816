import { createLogger } from '../../core/runtime/logger.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { type RunningIngress, startIngress } from '../../services/ingress/main.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../stack/servers.ts'
import { testSecrets } from './ingress-stand-in.ts'
import { logSink } from './log-sink.ts'

// A real ingress in the test process, on a free port, against the real Kafka and registry,
// with every log line kept so tests can check what reached the log.
export { testSecrets }

export interface TestIngress extends RunningIngress {
  logs: string[]
  webhookUrl: (token?: string) => string
  waitUntilReady: (timeoutMs?: number) => Promise<void>
}

export async function startTestIngress(overrides: Record<string, string> = {}): Promise<TestIngress> {
  const { sink, logs } = logSink()
  const config = loadConfig({
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    WEBHOOK_SECRETS: `prod=${testSecrets.prod},staging=${testSecrets.staging}`,
    INGRESS_HOST: '127.0.0.1',
    INGRESS_PORT: '0',
    ...overrides,
  })
  const ingress = await startIngress(config, createLogger('ingress', 'debug', sink))
  return {
    ...ingress,
    logs,
    webhookUrl: (token = testSecrets.prod) =>
      `${ingress.url}/webhooks/conversation-complete?token=${encodeURIComponent(token)}`,
    async waitUntilReady(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const response = await fetch(`${ingress.url}/readyz`).catch(() => undefined)
        if (response?.status === 200) return
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      throw new Error(`ingress not ready after ${timeoutMs} ms`)
    },
  }
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  })
}
