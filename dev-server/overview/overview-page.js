// The overview page's script, run by the browser: for each element naming a query, it asks the
// endpoint for that fixed, named query's result (never SQL) and draws it: a number, a uPlot
// chart, or a table. When every element is drawn it sets <body data-ready>, with data-points on
// each chart, so a test (and a reader) can tell an empty chart from a drawn one.
/* global uPlot */
const palette = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
]
const tableRows = 15
/** Series shown only when their legend entry is clicked. */
const hidden = / p(50|99)$/
/** Ids are long; the table shows their start, the tooltip the whole id. */
const idColumns = new Set(['session_id', 'campaign_id'])

function heading(element, data) {
  const title = document.createElement('h2')
  title.textContent = data.title
  element.append(title)
  if (data.unit) {
    const unit = document.createElement('p')
    unit.className = 'unit'
    unit.textContent = data.unit
    element.append(unit)
  }
}

function drawStat(element, data) {
  heading(element, data)
  const value = document.createElement('div')
  value.className = 'value'
  value.textContent = String(data.rows[0]?.[0] ?? 0)
  element.append(value)
}

function drawChart(element, data) {
  heading(element, data)
  const { range, x, series } = data.chart
  const points = series.reduce((sum, one) => sum + one.values.filter((value) => value !== null).length, 0)
  element.dataset.points = String(points)
  if (points === 0) {
    const empty = document.createElement('p')
    empty.className = 'empty'
    empty.textContent = 'no data in the last 24 hours'
    element.append(empty)
    return
  }
  const options = {
    width: Math.max(element.clientWidth - 24, 300),
    height: 260,
    series: [
      {},
      ...series.map((one, index) => ({
        label: one.name,
        stroke: palette[index % palette.length],
        width: 1.5,
        spanGaps: false,
        // Many agents times three percentiles is a tangle: p95 first, the rest a click away.
        show: !hidden.test(one.name),
      })),
    ],
    // The x axis is the window the page shows (the last 24 hours), not the span of the data.
    scales: { x: { time: true, range: () => range } },
    // uPlot sets its scales after the first draw: record the x extent then, for a reader (and the test).
    hooks: {
      setScale: [
        (plot, key) => {
          if (key === 'x') element.dataset.xRange = `${plot.scales.x.min}-${plot.scales.x.max}`
        },
      ],
    },
    axes: [{}, { size: 60 }],
    legend: { live: false },
  }
  // uPlot draws into the element it is given (and its legend below the canvas).
  new uPlot(options, [x, ...series.map((one) => one.values)], element)
}

function drawTable(element, data) {
  heading(element, data)
  const table = document.createElement('table')
  const head = table.createTHead().insertRow()
  for (const column of data.columns) {
    const cell = document.createElement('th')
    cell.textContent = column
    head.append(cell)
  }
  const body = table.createTBody()
  for (const row of data.rows.slice(0, tableRows)) {
    const line = body.insertRow()
    row.forEach((value, index) => {
      const cell = line.insertCell()
      const text = value === null ? '' : String(value)
      cell.textContent = idColumns.has(data.columns[index]) ? `${text.slice(0, 8)}…` : text
      if (idColumns.has(data.columns[index])) cell.title = text
      if (data.columns[index] === 'content') cell.className = 'text'
    })
  }
  element.append(table)
  element.dataset.rows = String(data.rows.length)
  if (data.rows.length > tableRows) {
    const more = document.createElement('p')
    more.className = 'unit'
    more.textContent = `the first ${tableRows} of ${data.rows.length} rows`
    element.append(more)
  }
}

const draw = { stat: drawStat, chart: drawChart, table: drawTable }

async function load(element) {
  const name = element.dataset.query
  const response = await fetch(`/overview/data/${encodeURIComponent(name)}`)
  if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`)
  const data = await response.json()
  draw[data.kind](element, data)
}

async function main() {
  const elements = [...document.querySelectorAll('[data-query]')]
  const results = await Promise.allSettled(elements.map(load))
  results.forEach((result, index) => {
    if (result.status === 'rejected') {
      const message = document.createElement('p')
      message.className = 'error'
      message.textContent = String(result.reason?.message ?? result.reason)
      elements[index].append(message)
      console.error(result.reason)
    }
  })
  document.body.dataset.ready = results.every((result) => result.status === 'fulfilled') ? 'ok' : 'failed'
}

main()
