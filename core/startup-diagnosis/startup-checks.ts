import { resolve } from 'node:path'
import type { Logger } from '../runtime/logger.ts'
import type { Config } from '../settings/env.ts'
import { diagnoseClickHouseServer, diagnoseEmbeddedClickHouse } from './clickhouse-diagnosis.ts'
import { findDataDirLockHolder } from './data-dir-lock-holder.ts'
import type { Diagnosis } from './diagnosis.ts'
import { probeHttp } from './http-probe.ts'
import { diagnoseKafka } from './kafka-diagnosis.ts'
import { probeBroker } from './kafka-probe.ts'
import { diagnoseRegistry, registryProbeUrl } from './registry-diagnosis.ts'

// The startup checks of the ingress, the worker and `npm run dev`: look at each server the
// service needs once, before starting, and say plainly what is wrong. A wrong setting stops the
// start (no retry can fix it); a server not up yet is reported and left to the service's retries.
export interface StartupNeeds {
  kafka?: boolean
  registry?: boolean
  clickhouse?: boolean
}

export class StartupError extends Error {
  override name = 'StartupError'
}

export async function diagnoseStartup(config: Config, needs: StartupNeeds): Promise<Diagnosis[]> {
  const checks: Promise<Diagnosis | undefined>[] = []
  if (needs.kafka) {
    const brokers = config.KAFKA_BROKERS.split(',').map((broker) => broker.trim())
    checks.push(
      Promise.all(brokers.map((broker) => probeBroker(broker))).then((observed) =>
        diagnoseKafka(config.KAFKA_BROKERS, observed),
      ),
    )
  }
  if (needs.registry)
    checks.push(
      probeHttp(registryProbeUrl(config.SCHEMA_REGISTRY_URL)).then((observed) =>
        diagnoseRegistry(config.SCHEMA_REGISTRY_URL, observed),
      ),
    )
  if (needs.clickhouse) {
    if (config.CLICKHOUSE_URL) {
      const url = new URL(config.CLICKHOUSE_URL)
      url.searchParams.set('query', 'SELECT 1')
      const user = decodeURIComponent(url.username) || config.CLICKHOUSE_USER
      const password = decodeURIComponent(url.password) || config.CLICKHOUSE_PASSWORD
      checks.push(
        probeHttp(url.href, {
          headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
        }).then((observed) => diagnoseClickHouseServer(config.CLICKHOUSE_URL!, user, observed)),
      )
    } else {
      const dir = resolve(config.CLICKHOUSE_DATA_DIR)
      checks.push(
        findDataDirLockHolder(dir).then((holder) =>
          diagnoseEmbeddedClickHouse(config.CLICKHOUSE_DATA_DIR, dir, holder),
        ),
      )
    }
  }
  return (await Promise.all(checks)).filter((diagnosis) => diagnosis !== undefined)
}

/** Logs every problem found; throws a StartupError naming the ones no retry can fix. */
export async function checkStartup(config: Config, needs: StartupNeeds, logger: Logger): Promise<void> {
  const diagnoses = await diagnoseStartup(config, needs)
  for (const diagnosis of diagnoses.filter((found) => found.retriable))
    logger.warn({ variable: diagnosis.variable }, diagnosis.message)
  const fatal = diagnoses.filter((found) => !found.retriable)
  if (fatal.length > 0) throw new StartupError(fatal.map((found) => found.message).join('\n'))
}
