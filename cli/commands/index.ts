import type { Command } from 'commander'
import { registerAuthCommand } from './auth.ts'
import { registerForgetCommand } from './forget.ts'
import { registerMigrateCommand } from './migrate.ts'
import { registerPricesCommand } from './prices.ts'
import { registerQueryCommand } from './query.ts'
import { registerReplayCommand } from './replay.ts'
import { registerSendCommand } from './send.ts'
import { registerVersionsCommand } from './versions.ts'
import { registerWebhooksCommand } from './webhooks.ts'
import { registerWhoamiCommand } from './whoami.ts'

// One line per command module; each module adds its subcommands to the program.
const commandModules: Array<(program: Command) => void> = [
  registerAuthCommand,
  registerWhoamiCommand,
  registerWebhooksCommand,
  registerSendCommand,
  registerMigrateCommand,
  registerReplayCommand,
  registerQueryCommand,
  registerPricesCommand,
  registerForgetCommand,
  registerVersionsCommand,
]

export function registerCommands(program: Command): void {
  for (const register of commandModules) register(program)
}
