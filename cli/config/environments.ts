import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { ConfigFileError } from './config-errors.ts'
import { configFile } from './config-paths.ts'
import { isSecureOrLoopback, parseLoopbackRedirectUri } from './loopback.ts'

// The platform environments the CLI can log in to (config.json in the config directory, see
// docs/cli.md). A client secret never lives in this file: it comes from an environment variable
// or a secret file, and is only ever held in memory.

export const defaultScope = 'openid profile email offline_access'
export const environmentVariable = 'VOICE_ANALYTICS_ENV'

// Environment names become file names (tokens/<name>.json).
const environmentNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
const environmentNameRule = 'environment names use letters, digits, "_" and "-" (at most 64)'
const environmentName = z.string().regex(environmentNamePattern, environmentNameRule)

const serverUrl = z.url().refine((text) => !URL.canParse(text) || isSecureOrLoopback(new URL(text)), {
  message: 'must be https (plain http only for loopback addresses)',
})

const redirectUri = z.string().superRefine((text, context) => {
  try {
    parseLoopbackRedirectUri(text)
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message })
  }
})

const environmentSchema = z.strictObject({
  base_url: serverUrl,
  auth_url: serverUrl,
  console_url: serverUrl.optional(),
  client_id: z.string().min(1),
  redirect_uri: redirectUri,
  scope: z.string().min(1).optional(),
  client_secret_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
  client_secret_file: z.string().min(1).optional(),
})

const configSchema = z.strictObject({
  default_environment: environmentName.optional(),
  environments: z.record(environmentName, environmentSchema),
})

export type Environment = z.infer<typeof environmentSchema> & { name: string; scope: string }
export type EnvironmentsConfig = z.infer<typeof configSchema>

/** Validates the text of config.json; `file` only names it in messages. */
export function parseEnvironmentsConfig(text: string, file: string): EnvironmentsConfig {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ConfigFileError(`${file} is not valid JSON: ${(error as Error).message}`)
  }
  // Say why a secret is refused instead of a generic "unknown key"; never echo its value.
  const environments = (json as { environments?: Record<string, unknown> } | null)?.environments
  for (const [name, entry] of Object.entries(environments ?? {})) {
    if (!environmentNamePattern.test(name)) {
      throw new ConfigFileError(`${file}: environment "${name}": ${environmentNameRule}`)
    }
    if (entry && typeof entry === 'object' && 'client_secret' in entry) {
      throw new ConfigFileError(
        `${file}: environment "${name}" has a client_secret; secrets are never kept in the config file. ` +
          `Remove it and set ${clientSecretVariable(name)} (or client_secret_env / client_secret_file) instead`,
      )
    }
  }
  const parsed = configSchema.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`,
    )
    throw new ConfigFileError(`${file} is invalid: ${problems.join('; ')}`)
  }
  return parsed.data
}

export async function loadEnvironmentsConfig(dir: string): Promise<EnvironmentsConfig> {
  const file = configFile(dir)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigFileError(
        `no platform environments configured: create ${file} (format in docs/cli.md, "CLI: platform login and webhooks")`,
      )
    }
    throw error
  }
  return parseEnvironmentsConfig(text, file)
}

/** --env, else $VOICE_ANALYTICS_ENV, else default_environment, else the only one configured. */
export function selectEnvironment(
  config: EnvironmentsConfig,
  requested: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Environment {
  const names = Object.keys(config.environments)
  const name =
    requested ??
    env[environmentVariable] ??
    config.default_environment ??
    (names.length === 1 ? names[0] : undefined)
  if (name === undefined) {
    throw new ConfigFileError(
      `several environments are configured (${names.join(', ')}): pick one with --env or set default_environment`,
    )
  }
  const entry = config.environments[name]
  if (!entry) {
    throw new ConfigFileError(`unknown environment "${name}"; configured: ${names.join(', ') || 'none'}`)
  }
  return { ...entry, name, scope: entry.scope ?? defaultScope }
}

export function clientSecretVariable(environment: string): string {
  return `VOICE_ANALYTICS_CLIENT_SECRET_${environment.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`
}

/** The confidential client's secret, or undefined for a public client. */
export async function resolveClientSecret(
  environment: Environment,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const variable = environment.client_secret_env ?? clientSecretVariable(environment.name)
  const fromEnv = env[variable]
  if (fromEnv) return fromEnv
  if (!environment.client_secret_file) return undefined
  let text: string
  try {
    text = await readFile(environment.client_secret_file, 'utf8')
  } catch (error) {
    throw new ConfigFileError(
      `cannot read the client secret file ${environment.client_secret_file} of environment ` +
        `"${environment.name}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  const secret = text.trim()
  if (!secret) throw new ConfigFileError(`the client secret file ${environment.client_secret_file} is empty`)
  return secret
}
