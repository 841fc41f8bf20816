import { enabledChannels } from './alertmanager-config.ts'
import { writeAlertmanagerConfig } from './alertmanager-config-files.ts'

// `node services/alerting/render-alertmanager-config.ts <dir> [template-dir]`: renders
// alertmanager.yml (0600) and links.tmpl into <dir> from the ALERT_* variables, for the local
// stack (scripts/stack/stack.sh) and compose. Prints which channels are on, never their URLs.
const [outDir, templateDir] = process.argv.slice(2)
if (!outDir) {
  console.error('usage: render-alertmanager-config.ts <output-dir> [template-dir]')
  process.exit(2)
}
try {
  const { configFile, settings } = writeAlertmanagerConfig(outDir, process.env, templateDir)
  const channels = enabledChannels(settings)
  console.log(
    `alertmanager config: ${configFile} (receivers: ${channels.length ? channels.join(', ') : 'none set — ALERT_WEBHOOK_URL, ALERT_SLACK_WEBHOOK_URL or ALERT_EMAIL_TO'})`,
  )
} catch (error) {
  console.error(`alertmanager config: ${(error as Error).message}`)
  process.exit(1)
}
