#!/usr/bin/env node
import { Command } from 'commander'
import { registerCommands } from './commands/index.ts'

const program = new Command('voice-analytics')
  .description('Voice-agent conversation analytics: platform login, webhooks, pipeline tools')
  .showHelpAfterError()
registerCommands(program)

try {
  await program.parseAsync(process.argv)
} catch (error) {
  // Expected failures carry a message for the user; nothing else should reach them as a stack trace.
  console.error(`voice-analytics: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
