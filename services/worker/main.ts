import { loadConfig } from '../core/env.ts'
import { createLogger } from '../core/logger.ts'
import { runUntilSignal } from '../core/run-until-signal.ts'
import { checkStartup } from '../core/startup-diagnosis/startup-checks.ts'
import { startWorker } from './worker.ts'

// `npm run start:worker`. SIGTERM/SIGINT: finish the batch in flight, commit, disconnect, exit 0.
if (import.meta.main) {
  const logger = createLogger('worker')
  await runUntilSignal(
    logger,
    async () => {
      const config = loadConfig()
      await checkStartup(config, { kafka: true, registry: true, clickhouse: true }, logger)
      return (await startWorker(config, logger)).stop
    },
    'shutting down: finishing the batch in flight',
  )
}
