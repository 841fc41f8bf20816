// The overview page's alerts section: what the local Alertmanager has firing, as the dev server
// read it (/overview/alerts; the browser never talks to Alertmanager). Its own script, apart from
// the charts of overview-page.js. Sets data-state on the section: "firing", "quiet" or
// "not-running", so a test (and a reader) can tell which it drew.
async function drawAlerts(section) {
  const title = document.createElement('h2')
  title.textContent = 'Alerts'
  section.append(title)
  const response = await fetch('/overview/alerts')
  if (!response.ok) throw new Error(`alerts: ${response.status} ${await response.text()}`)
  const view = await response.json()
  if (!view.running) {
    const message = document.createElement('p')
    message.className = 'unit'
    message.textContent = view.message
    section.append(message)
    section.dataset.state = 'not-running'
    return
  }
  if (view.alerts.length === 0) {
    const quiet = document.createElement('p')
    quiet.className = 'unit'
    quiet.textContent = 'nothing firing'
    section.append(quiet)
    section.dataset.state = 'quiet'
    return
  }
  const table = document.createElement('table')
  const head = table.createTHead().insertRow()
  for (const name of ['alert', 'severity', 'about', 'since', 'state', 'summary']) {
    const cell = document.createElement('th')
    cell.textContent = name
    head.append(cell)
  }
  const body = table.createTBody()
  for (const alert of view.alerts) {
    const row = body.insertRow()
    row.className = `alert-${alert.state}`
    for (const value of [
      alert.alertname,
      alert.severity,
      alert.about,
      alert.since,
      alert.state,
      alert.summary,
    ]) {
      row.insertCell().textContent = value
    }
    row.cells[5].className = 'text'
  }
  section.append(table)
  section.dataset.state = 'firing'
  section.dataset.rows = String(view.alerts.length)
}

const alertsSection = document.getElementById('alerts')
drawAlerts(alertsSection).catch((error) => {
  const message = document.createElement('p')
  message.className = 'error'
  message.textContent = String(error.message ?? error)
  alertsSection.append(message)
  alertsSection.dataset.state = 'failed'
})
