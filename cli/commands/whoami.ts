import type { Command } from 'commander'
import { callPlatformApi } from '../platform/api-client.ts'
import { openPlatformSession } from '../platform/session.ts'
import { environmentOptionHelp } from './auth.ts'

// `whoami`: the platform's view of the logged-in user (GET /api/Users/me), as JSON.
export function registerWhoamiCommand(program: Command): void {
  program
    .command('whoami')
    .description('show the logged-in user as the platform API sees it (GET /api/Users/me)')
    .option('--env <name>', environmentOptionHelp)
    .action(async (options: { env?: string }) => {
      const session = await openPlatformSession(options.env)
      const user = await callPlatformApi(session, 'GET', '/api/Users/me')
      process.stdout.write(`${JSON.stringify(user, null, 2)}\n`)
    })
}
