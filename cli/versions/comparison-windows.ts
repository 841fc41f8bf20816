import type { AgentVersion } from './version-changes.ts'

// Where the figures before and after a version change come from (#32): two windows of one length,
// one ending where the new version was first seen, the other starting there. The length is the
// longest that stays within the previous version's time and the new version's (until the next
// change, or the agent's last conversation), at most `maxWindowMs` (the CLI's --window, 7 days by
// default): equal lengths, so that calls of both sides come from as many hours of the day and days
// of the week as the data allow. Every conversation of the agent in a window counts, whichever of
// its fingerprints it ran: a version's calls that skipped an update look like the version before.
// Pure.

export interface ChangeWindows {
  /** [start, end) in epoch ms. */
  before: [number, number]
  after: [number, number]
}

/**
 * The windows of each of one agent's versions after its first (versions oldest first), in order;
 * null where the two versions leave no time (first seen in the same millisecond).
 */
export function comparisonWindows(
  versions: readonly AgentVersion[],
  maxWindowMs: number,
): Array<ChangeWindows | null> {
  const lastSeenMs = versions.reduce((last, version) => Math.max(last, version.lastSeenMs), 0)
  return versions.slice(1).map((version, index) => {
    const changeMs = version.firstSeenMs
    const previousStart = versions[index]!.firstSeenMs
    const nextStart = versions[index + 2]?.firstSeenMs ?? lastSeenMs + 1
    const length = Math.min(maxWindowMs, changeMs - previousStart, nextStart - changeMs)
    if (length <= 0) return null
    return { before: [changeMs - length, changeMs], after: [changeMs, changeMs + length] }
  })
}
