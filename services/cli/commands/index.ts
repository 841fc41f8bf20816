import type { Command } from 'commander'

// One line per command module; each module adds its subcommands to the program.
const commandModules: Array<(program: Command) => void> = []

export function registerCommands(program: Command): void {
  for (const register of commandModules) register(program)
}
