import { createLogger } from '../../core/runtime/logger.ts'
import { runUntilSignal } from '../../core/runtime/run-until-signal.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { checkStartup } from '../../core/startup-diagnosis/startup-checks.ts'
import { startAssembler } from './assembler.ts'

// `npm run start:assembler`. SIGTERM/SIGINT: stop consuming, leave the group; traces not emitted are
// not committed, so the next start reads them again.
if (import.meta.main) {
  const logger = createLogger('assembler')
  await runUntilSignal(
    logger,
    async () => {
      const config = loadConfig()
      await checkStartup(config, { kafka: true, registry: true }, logger)
      return (await startAssembler(config, logger)).stop
    },
    'shutting down: traces not emitted are read again at the next start',
  )
}
