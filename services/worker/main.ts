import { loadConfig } from '../core/env.ts'
import { createLogger } from '../core/logger.ts'
import { startWorker } from './worker.ts'

// `npm run start:worker`. SIGTERM/SIGINT: finish the batch in flight, commit, disconnect, exit 0.
if (import.meta.main) {
  const logger = createLogger('worker')
  try {
    const worker = await startWorker(loadConfig(), logger)
    const shutdown = async (signal: string) => {
      logger.info({ signal }, 'shutting down: finishing the batch in flight')
      setTimeout(() => {
        logger.error(
          'shutdown did not finish within 30 s: exiting anyway (uncommitted batches are read again)',
        )
        process.exit(1)
      }, 30_000).unref()
      await worker.stop()
      process.exit(0)
    }
    process.once('SIGTERM', shutdown)
    process.once('SIGINT', shutdown)
  } catch (error) {
    logger.fatal(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
