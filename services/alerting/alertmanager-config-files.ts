import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type AlertmanagerSettings,
  alertSettingsFromEnv,
  renderAlertmanagerConfig,
  renderLinksTemplate,
} from './alertmanager-config.ts'

// Writes what Alertmanager reads: alertmanager.yml (0600: it holds the receivers' secrets) and
// links.tmpl into one directory, the shared message template taken from the repository (or
// the path given, e.g. inside a container). The I/O around alertmanager-config.ts.
export const repositoryTemplateDir = fileURLToPath(
  new URL('../../dashboards/alertmanager/templates', import.meta.url),
)

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
  const text = renderAlertmanagerConfig(settings, [join(templateDir, '*.tmpl'), links])
  writeFileSync(configFile, text, { mode: 0o600 })
  // The mode of writeFileSync applies to a new file only: an older, wider file is narrowed too.
  chmodSync(configFile, 0o600)
  return { configFile, settings }
}
