import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { giveTo, writeAlertmanagerConfig, writeGrafanaNotifications } from './alerting-config-files.ts'
import { enabledChannels } from './alertmanager-config.ts'

// `node dashboards/src/alerting/render-alerting-config.ts --alertmanager <dir> [--templates <dir>]
// [--grafana <dir>] [--alertmanager-owner <uid>] [--grafana-owner <uid>]`: renders
// alertmanager.yml (0600) and links.tmpl, and Grafana's contact points, from the ALERT_*
// variables, for the local stack (scripts/stack/stack.sh) and compose (where the owners are the
// servers' users). Prints which channels are on, never their URLs or passwords.
const { values } = parseArgs({
  options: {
    alertmanager: { type: 'string' },
    templates: { type: 'string' },
    grafana: { type: 'string' },
    'alertmanager-owner': { type: 'string' },
    'grafana-owner': { type: 'string' },
  },
})
if (!values.alertmanager && !values.grafana) {
  console.error('usage: render-alerting-config.ts --alertmanager <dir> [--templates <dir>] [--grafana <dir>]')
  process.exit(2)
}
try {
  const written: string[] = []
  let channels: string[] = []
  if (values.alertmanager) {
    const { configFile, settings } = writeAlertmanagerConfig(
      values.alertmanager,
      process.env,
      values.templates,
    )
    channels = enabledChannels(settings)
    if (values['alertmanager-owner']) {
      giveTo(dirname(configFile), Number(values['alertmanager-owner']))
      giveTo(configFile, Number(values['alertmanager-owner']))
    }
    written.push(configFile)
  }
  if (values.grafana) {
    const file = writeGrafanaNotifications(values.grafana, process.env)
    if (values['grafana-owner']) giveTo(file, Number(values['grafana-owner']))
    written.push(file)
  }
  const on = channels.length
    ? channels.join(', ')
    : 'none set — ALERT_WEBHOOK_URL, ALERT_SLACK_WEBHOOK_URL or ALERT_EMAIL_TO'
  console.log(`alerting config: ${written.join(', ')} (receivers: ${on})`)
} catch (error) {
  console.error(`alerting config: ${(error as Error).message}`)
  process.exit(1)
}
