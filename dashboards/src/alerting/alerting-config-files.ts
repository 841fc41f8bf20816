import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type AlertmanagerSettings,
  alertSettingsFromEnv,
  renderAlertmanagerConfig,
  renderLinksTemplate,
} from './alertmanager-config.ts'
import { renderGrafanaNotifications } from './grafana-notifications.ts'

// Writes what Alertmanager reads — alertmanager.yml (0600: it holds the receivers' secrets) and
// links.tmpl into one directory, the shared message template taken from the repository (or the
// path given, e.g. inside a container) — and Grafana's contact points (0600 too). The I/O around
// alertmanager-config.ts and grafana-notifications.ts.
export const repositoryTemplateDir = fileURLToPath(new URL('../../alertmanager/templates', import.meta.url))

export interface WrittenAlertmanagerConfig {
  configFile: string
  settings: AlertmanagerSettings
}

export function writeAlertmanagerConfig(
  outDir: string,
  env: Record<string, string | undefined>,
  templateDir = repositoryTemplateDir,
): WrittenAlertmanagerConfig {
  const settings = alertSettingsFromEnv(env)
  const dir = resolve(outDir)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const links = join(dir, 'links.tmpl')
  writeFileSync(links, renderLinksTemplate(settings))
  const configFile = join(dir, 'alertmanager.yml')
  writeSecretFile(configFile, renderAlertmanagerConfig(settings, [join(templateDir, '*.tmpl'), links]))
  return { configFile, settings }
}

/** Grafana's provisioning file of contact points and policy, in `outDir`. */
export function writeGrafanaNotifications(outDir: string, env: Record<string, string | undefined>): string {
  const dir = resolve(outDir)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, 'voice-analytics-notifications.yaml')
  writeSecretFile(file, renderGrafanaNotifications(alertSettingsFromEnv(env)))
  return file
}

function writeSecretFile(file: string, text: string) {
  writeFileSync(file, text, { mode: 0o600 })
  // The mode of writeFileSync applies to a new file only: an older, wider file is narrowed too.
  chmodSync(file, 0o600)
}

/** Gives a written file (and its directory) to the server's user, e.g. in a compose volume. */
export function giveTo(file: string, uid: number) {
  chownSync(file, uid, uid)
}
