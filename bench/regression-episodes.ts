// What the regression benchmark counts, from one agent's evaluations in time order: alert episodes
// (a run of firing evaluations is one notification, as Grafana sends one while an instance fires)
// and the time from a change to the first firing evaluation. Pure.
export interface Evaluation {
  at: number
  firing: boolean
}

/** Runs of consecutive firing evaluations. */
export function alertEpisodes(evaluations: readonly Evaluation[]): { from: number; to: number }[] {
  const episodes: { from: number; to: number }[] = []
  let open: { from: number; to: number } | undefined
  for (const evaluation of [...evaluations].sort((a, b) => a.at - b.at)) {
    if (evaluation.firing) {
      if (open) open.to = evaluation.at
      else {
        open = { from: evaluation.at, to: evaluation.at }
        episodes.push(open)
      }
    } else open = undefined
  }
  return episodes
}

/** Milliseconds from the change to the first firing evaluation at or after it; undefined if none fired. */
export function timeToDetect(evaluations: readonly Evaluation[], changedAt: number): number | undefined {
  const first = evaluations
    .filter((evaluation) => evaluation.firing && evaluation.at >= changedAt)
    .sort((a, b) => a.at - b.at)[0]
  return first === undefined ? undefined : first.at - changedAt
}
