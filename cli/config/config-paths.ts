import { homedir } from 'node:os'
import { join } from 'node:path'

// Where the CLI keeps its environments file, tokens and webhook records: the user's config
// directory, or VOICE_ANALYTICS_CONFIG_DIR (tests point it at a temp dir).
export const configDirVariable = 'VOICE_ANALYTICS_CONFIG_DIR'

export function configDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const explicit = env[configDirVariable]
  if (explicit) return explicit
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'voice-analytics')
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'voice-analytics')
  return join(home, '.config', 'voice-analytics')
}

export const configFile = (dir: string) => join(dir, 'config.json')
export const tokenFile = (dir: string, environment: string) => join(dir, 'tokens', `${environment}.json`)
export const webhookRecordsFile = (dir: string, environment: string) =>
  join(dir, 'webhooks', `${environment}.json`)
