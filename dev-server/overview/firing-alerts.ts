// What the overview page shows of Alertmanager's alerts (GET /api/v2/alerts): one row per alert,
// what it is about, since when, and whether a person was told (active) or it is held back
// (silenced, inhibited). Pure: the handler fetches, this decides.
export interface AlertmanagerApiAlert {
  labels: Record<string, string>
  annotations?: Record<string, string>
  startsAt: string
  status: { state: string; silencedBy?: string[]; inhibitedBy?: string[] }
}

export interface FiringAlert {
  alertname: string
  severity: string
  /** agent, campaign, telecom provider or instance the alert is about */
  about: string
  summary: string
  since: string
  /** firing (notified), silenced or inhibited */
  state: 'firing' | 'silenced' | 'inhibited'
}

export type AlertsView = { running: true; alerts: FiringAlert[] } | { running: false; message: string }

const aboutLabels = ['agent', 'campaign', 'telecom_provider', 'instance'] as const
const severityOrder: Record<string, number> = { critical: 0, warning: 1 }

function stateOf(alert: AlertmanagerApiAlert): FiringAlert['state'] {
  if (alert.status.silencedBy?.length) return 'silenced'
  if (alert.status.inhibitedBy?.length) return 'inhibited'
  return 'firing'
}

/** Critical first, then the longest firing; each with what it is about. */
export function firingAlertsView(alerts: AlertmanagerApiAlert[]): AlertsView {
  const rows = alerts.map(
    (alert): FiringAlert => ({
      alertname: alert.labels.alertname ?? '',
      severity: alert.labels.severity ?? '',
      about: aboutLabels
        .filter((label) => alert.labels[label])
        .map((label) => `${label} ${alert.labels[label]}`)
        .join(', '),
      summary: alert.annotations?.summary ?? '',
      since: alert.startsAt,
      state: stateOf(alert),
    }),
  )
  rows.sort(
    (a, b) =>
      (severityOrder[a.severity] ?? 2) - (severityOrder[b.severity] ?? 2) || a.since.localeCompare(b.since),
  )
  return { running: true, alerts: rows }
}

export const alertingNotRunning = (why: string): AlertsView => ({
  running: false,
  message: `alerting not running (${why})`,
})
