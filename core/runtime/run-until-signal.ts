import type { Logger } from './logger.ts'

// The life of a service process (ingress, worker, dev): start it; on SIGTERM or SIGINT stop it
// and exit 0. A start that fails exits 1 with its message; a stop that hangs past the deadline
// exits 1 (what was not acknowledged yet is done again after a restart: nothing is lost).
export async function runUntilSignal(
  logger: Logger,
  start: () => Promise<() => Promise<void>>,
  shutdownMessage: string,
  stopDeadlineMs = 30_000,
): Promise<void> {
  try {
    const stop = await start()
    const shutdown = async (signal: NodeJS.Signals) => {
      logger.info({ signal }, shutdownMessage)
      setTimeout(() => {
        logger.error(`shutdown did not finish within ${stopDeadlineMs / 1000} s: exiting anyway`)
        process.exit(1)
      }, stopDeadlineMs).unref()
      await stop()
      process.exit(0)
    }
    process.once('SIGTERM', shutdown)
    process.once('SIGINT', shutdown)
  } catch (error) {
    logger.fatal(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
