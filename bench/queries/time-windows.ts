// The windows a dashboard is opened on (24 h, 7 d, 30 d ending at the data's end) and the
// $__interval Grafana gives a panel over each: the range over 144 points, rounded down to a step
// Grafana offers (the overview page uses 600 s for a day, the same ratio). Pure.

export interface TimeWindow {
  name: '24 h' | '7 d' | '30 d'
  from: Date
  to: Date
  intervalSeconds: number
}

const day = 86_400
const steps = [60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, day]
const points = 144

/** The largest offered step not above range / 144 points (at least a minute). */
export function intervalFor(rangeSeconds: number): number {
  const wanted = rangeSeconds / points
  return steps.filter((step) => step <= wanted).at(-1) ?? steps[0]!
}

export function timeWindows(end: Date): TimeWindow[] {
  return (
    [
      ['24 h', day],
      ['7 d', 7 * day],
      ['30 d', 30 * day],
    ] as const
  ).map(([name, seconds]) => ({
    name,
    from: new Date(end.getTime() - seconds * 1000),
    to: end,
    intervalSeconds: intervalFor(seconds),
  }))
}
