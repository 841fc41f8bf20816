import { describe, expect, it } from 'vitest'
import { alertingNotRunning, firingAlertsView } from './firing-alerts.ts'

const alert = (labels: Record<string, string>, startsAt: string, status = {}) => ({
  labels,
  annotations: { summary: `${labels.alertname} summary` },
  startsAt,
  status: { state: 'active', silencedBy: [], inhibitedBy: [], ...status },
})

describe('firingAlertsView', () => {
  it('lists critical alerts first, then by start; says what each is about and whether it was held back', () => {
    const view = firingAlertsView([
      alert({ alertname: 'VoiceAgentSlowLlm', severity: 'warning', agent: 'Sales' }, '2026-11-25T10:00:00Z'),
      alert(
        { alertname: 'VoiceAgentFailedRooms', severity: 'critical', agent: 'Billing' },
        '2026-11-25T10:05:00Z',
        {
          state: 'suppressed',
          inhibitedBy: ['abc'],
        },
      ),
      alert({ alertname: 'WorkerDown', severity: 'critical', instance: 'w:9464' }, '2026-11-25T10:01:00Z'),
      alert(
        { alertname: 'VoiceCampaignLatencyPercentileHigh', severity: 'warning', campaign: 'Spring' },
        '2026-11-25T09:00:00Z',
        {
          state: 'suppressed',
          silencedBy: ['s1'],
        },
      ),
    ])
    expect(view).toEqual({
      running: true,
      alerts: [
        {
          alertname: 'WorkerDown',
          severity: 'critical',
          about: 'instance w:9464',
          summary: 'WorkerDown summary',
          since: '2026-11-25T10:01:00Z',
          state: 'firing',
        },
        expect.objectContaining({
          alertname: 'VoiceAgentFailedRooms',
          about: 'agent Billing',
          state: 'inhibited',
        }),
        expect.objectContaining({
          alertname: 'VoiceCampaignLatencyPercentileHigh',
          about: 'campaign Spring',
          state: 'silenced',
        }),
        expect.objectContaining({ alertname: 'VoiceAgentSlowLlm', about: 'agent Sales', state: 'firing' }),
      ],
    })
  })

  it('an empty list is a running Alertmanager with nothing firing', () => {
    expect(firingAlertsView([])).toEqual({ running: true, alerts: [] })
  })

  it('a missing Alertmanager is a message, not an error', () => {
    expect(alertingNotRunning('ALERTMANAGER_URL unset')).toEqual({
      running: false,
      message: 'alerting not running (ALERTMANAGER_URL unset)',
    })
  })
})
