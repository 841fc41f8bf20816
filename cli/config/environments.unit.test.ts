import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigFileError } from './config-errors.ts'
import { configDir } from './config-paths.ts'
import {
  clientSecretVariable,
  defaultScope,
  loadEnvironmentsConfig,
  parseEnvironmentsConfig,
  resolveClientSecret,
  selectEnvironment,
} from './environments.ts'

const prod = {
  base_url: 'https://api.example.com',
  auth_url: 'https://id.example.com/realms/voice',
  console_url: 'https://console.example.com',
  client_id: 'voice-analytics-cli',
  redirect_uri: 'http://127.0.0.1:53682/callback',
}
const parse = (config: unknown) => parseEnvironmentsConfig(JSON.stringify(config), 'config.json')

describe('parseEnvironmentsConfig', () => {
  it('accepts environments with https servers, or http on loopback', () => {
    const config = parse({
      default_environment: 'prod',
      environments: {
        prod,
        local: { ...prod, base_url: 'http://127.0.0.1:3000', auth_url: 'http://localhost:8180/realms/x' },
      },
    })
    expect(Object.keys(config.environments)).toEqual(['prod', 'local'])
  })

  it('refuses a client_secret in the file without repeating it', () => {
    const attempt = () => parse({ environments: { prod: { ...prod, client_secret: 'do-not-echo-me' } } })
    expect(attempt).toThrow(ConfigFileError)
    expect(attempt).toThrow(/secrets are never kept in the config file.*VOICE_ANALYTICS_CLIENT_SECRET_PROD/)
    try {
      attempt()
    } catch (error) {
      expect(String(error)).not.toContain('do-not-echo-me')
    }
  })

  it.each([
    [{ ...prod, auth_url: 'http://id.example.com/realms/voice' }, /auth_url: must be https/],
    [{ ...prod, base_url: 'not a url' }, /base_url/],
    [
      { ...prod, redirect_uri: 'https://app.example.com/callback' },
      /redirect_uri: redirect URI .* must use http/,
    ],
    [{ ...prod, redirect_uri: 'http://192.0.2.1:53682/callback' }, /must point to a loopback address/],
    [{ ...prod, redirect_uri: 'http://127.0.0.1/callback' }, /must name a port/],
    [{ ...prod, client_id: '' }, /client_id/],
    [{ ...prod, colour: 'blue' }, /colour/],
  ])('names the problem of a bad environment (%#)', (environment, message) => {
    expect(() => parse({ environments: { prod: environment } })).toThrow(message)
  })

  it('refuses bad JSON and bad environment names', () => {
    expect(() => parseEnvironmentsConfig('{', 'c.json')).toThrow(/c.json is not valid JSON/)
    expect(() => parse({ environments: { 'bad name': prod } })).toThrow(/environment names use/)
  })
})

describe('selectEnvironment', () => {
  const config = parse({ default_environment: 'prod', environments: { prod, staging: prod } })

  it('takes --env, then VOICE_ANALYTICS_ENV, then default_environment', () => {
    expect(selectEnvironment(config, 'staging', {}).name).toBe('staging')
    expect(selectEnvironment(config, undefined, { VOICE_ANALYTICS_ENV: 'staging' }).name).toBe('staging')
    expect(selectEnvironment(config, undefined, {}).name).toBe('prod')
  })

  it('takes the only environment, fills in the default scope', () => {
    const single = selectEnvironment(parse({ environments: { prod } }), undefined, {})
    expect(single).toMatchObject({ name: 'prod', scope: defaultScope, client_id: 'voice-analytics-cli' })
  })

  it('asks to choose when there are several and no default, and names unknown ones', () => {
    const two = parse({ environments: { prod, staging: prod } })
    expect(() => selectEnvironment(two, undefined, {})).toThrow(
      /several environments are configured \(prod, staging\)/,
    )
    expect(() => selectEnvironment(two, 'dev', {})).toThrow(
      /unknown environment "dev"; configured: prod, staging/,
    )
  })
})

describe('resolveClientSecret', () => {
  const environment = selectEnvironment(parse({ environments: { 'eu-prod': prod } }), undefined, {})

  it('reads the per-environment variable, else the secret file, else none (public client)', async () => {
    expect(clientSecretVariable('eu-prod')).toBe('VOICE_ANALYTICS_CLIENT_SECRET_EU_PROD')
    expect(await resolveClientSecret(environment, { VOICE_ANALYTICS_CLIENT_SECRET_EU_PROD: 's1' })).toBe('s1')
    expect(await resolveClientSecret(environment, {})).toBeUndefined()
    const dir = await mkdtemp(join(tmpdir(), 'va-secret-'))
    try {
      await writeFile(join(dir, 'secret'), 's2\n')
      const withFile = { ...environment, client_secret_file: join(dir, 'secret') }
      expect(await resolveClientSecret(withFile, {})).toBe('s2')
      expect(
        await resolveClientSecret({ ...withFile, client_secret_env: 'MY_SECRET' }, { MY_SECRET: 's3' }),
      ).toBe('s3')
      await expect(
        resolveClientSecret({ ...withFile, client_secret_file: join(dir, 'none') }, {}),
      ).rejects.toThrow(/cannot read the client secret file .*none of environment "eu-prod": ENOENT/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('config location', () => {
  it('is VOICE_ANALYTICS_CONFIG_DIR, else $XDG_CONFIG_HOME/voice-analytics, else ~/.config/voice-analytics', () => {
    expect(configDir({ VOICE_ANALYTICS_CONFIG_DIR: '/t/c', XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u')).toBe(
      '/t/c',
    )
    expect(configDir({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u')).toBe('/x/voice-analytics')
    expect(configDir({}, 'linux', '/home/u')).toBe('/home/u/.config/voice-analytics')
  })

  it('says where to create the file when it is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'va-config-'))
    try {
      await expect(loadEnvironmentsConfig(dir)).rejects.toThrow(
        `no platform environments configured: create ${join(dir, 'config.json')}`,
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
