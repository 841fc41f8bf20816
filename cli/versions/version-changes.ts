// From the fingerprints an agent's conversations ran (conversations.config_fingerprint, with what each
// stands for in agent_versions) to its versions and what changed between them (#32). Pure.
//
// Not every new fingerprint is a new version: an AgentConfigUpdate or a handoff shows only in the
// calls that got that far, so one configuration shows as several fingerprints (with and without the
// update), mixed in time, and the first call that reaches a rare step brings a fingerprint never seen
// before. What tells a change from such a path is that a change replaces: the calls of the version
// before stop. So a fingerprint first seen at t starts a new version when
//  - it shows a part no earlier fingerprint of the agent showed (other System instructions, an
//    update's instructions, a tool, a handoff target), and none of the current version's
//    fingerprints is seen later than t + rolloutGraceMs; or
//  - it lacks a part of the current version, and none of the current version's fingerprints that
//    have that part is seen later than t + rolloutGraceMs.
// Either only once the current version ran longer than the grace. Every other fingerprint belongs
// to the version current when it was first seen. What this cannot
// see: the removal of a step only some calls reach (the calls without it were there before), a
// rollback to an earlier configuration (its fingerprint is an old one: that version is seen again),
// and two configurations running side by side for longer than the grace (one version). A change in
// the last hour of data counts as one until later calls say otherwise. docs/metrics.md says so.

/** Calls of the version before may go on this long after a change (a rollout across hosts). */
export const rolloutGraceMs = 3_600_000

/** A fingerprint of one agent as its conversations show it. */
export interface FingerprintSeen {
  agentId: string
  agentName: string | null
  fingerprint: string
  firstSeenMs: number
  lastSeenMs: number
  conversations: number
}

/** What a fingerprint stands for (agent_versions). */
export interface ConfigContent {
  instructions: string
  updateInstructions: readonly string[]
  tools: readonly string[]
  handoffTargets: readonly string[]
}

export interface SetChange {
  added: string[]
  removed: string[]
}

export interface WhatChanged {
  /** Sentences of the System instructions. */
  instructions: SetChange
  updateInstructions: SetChange
  tools: SetChange
  handoffTargets: SetChange
}

export interface AgentVersion {
  agentId: string
  agentName: string | null
  /** 1 for the agent's first version seen. */
  number: number
  /** The fingerprint that started it first, then those folded into it. */
  fingerprints: string[]
  firstSeenMs: number
  lastSeenMs: number
  conversations: number
  /** What its conversations showed, all fingerprints together. */
  content: ConfigContent
  /** Against the version before it; null for the first. */
  changed: WhatChanged | null
}

const emptyContent: ConfigContent = {
  instructions: '',
  updateInstructions: [],
  tools: [],
  handoffTargets: [],
}

/** Each agent's versions, oldest first, agents in order of id. */
export function agentVersions(
  seen: readonly FingerprintSeen[],
  contents: ReadonlyMap<string, ConfigContent>,
): AgentVersion[] {
  const byAgent = new Map<string, FingerprintSeen[]>()
  for (const entry of seen) {
    const own = byAgent.get(entry.agentId)
    if (own) own.push(entry)
    else byAgent.set(entry.agentId, [entry])
  }
  return [...byAgent.keys()]
    .sort()
    .flatMap((agent) => versionsOfAgent(byAgent.get(agent)!, (key) => contents.get(contentKey(agent, key))))
}

/** The key of `contents`: agent and fingerprint. */
export const contentKey = (agentId: string, fingerprint: string) => `${agentId}\u0000${fingerprint}`

interface Building {
  fingerprints: string[]
  firstSeenMs: number
  lastSeenMs: number
  conversations: number
  /** Each part its fingerprints showed, with the last time one of them was seen. */
  partLastSeen: Map<string, number>
  systems: string[]
}

function versionsOfAgent(
  seen: readonly FingerprintSeen[],
  contentOf: (fingerprint: string) => ConfigContent | undefined,
): AgentVersion[] {
  const ordered = [...seen].sort(
    (a, b) => a.firstSeenMs - b.firstSeenMs || a.fingerprint.localeCompare(b.fingerprint),
  )
  const shown = new Set<string>()
  const versions: Building[] = []
  for (const entry of ordered) {
    const content = contentOf(entry.fingerprint)
    const own = parts(content ?? emptyContent)
    // A fingerprint whose row is missing counts as something new: it cannot be shown the same.
    if (!content) own.add(`?\u0000${entry.fingerprint}`)
    const current = versions.at(-1)
    const stopped = (lastSeenMs: number) => lastSeenMs <= entry.firstSeenMs + rolloutGraceMs
    const added = [...own].some((part) => !shown.has(part))
    const removed = current ? [...current.partLastSeen].filter(([part]) => !own.has(part)) : []
    const starts =
      !current ||
      // A version must have run longer than the grace to be replaced: calls of one moment are one.
      (entry.firstSeenMs - current.firstSeenMs > rolloutGraceMs &&
        (added
          ? stopped(current.lastSeenMs)
          : removed.length > 0 && removed.every(([, lastSeenMs]) => stopped(lastSeenMs))))
    for (const part of own) shown.add(part)
    const version: Building = starts
      ? {
          fingerprints: [],
          firstSeenMs: entry.firstSeenMs,
          lastSeenMs: entry.lastSeenMs,
          conversations: 0,
          partLastSeen: new Map(),
          systems: [],
        }
      : current!
    if (starts) versions.push(version)
    version.fingerprints.push(entry.fingerprint)
    version.lastSeenMs = Math.max(version.lastSeenMs, entry.lastSeenMs)
    version.conversations += entry.conversations
    for (const part of own)
      version.partLastSeen.set(part, Math.max(version.partLastSeen.get(part) ?? 0, entry.lastSeenMs))
    const system = content?.instructions ?? ''
    if (system !== '' && !version.systems.includes(system)) version.systems.push(system)
  }
  const agentId = seen[0]?.agentId ?? ''
  const agentName = seen.find((entry) => entry.agentName !== null)?.agentName ?? null
  const contents = versions.map((version) => contentFromParts(version.partLastSeen.keys(), version.systems))
  return versions.map(({ fingerprints, firstSeenMs, lastSeenMs, conversations }, index) => ({
    agentId,
    agentName,
    number: index + 1,
    fingerprints,
    firstSeenMs,
    lastSeenMs,
    conversations,
    content: contents[index]!,
    changed: index === 0 ? null : whatChanged(contents[index - 1]!, contents[index]!),
  }))
}

function parts(content: ConfigContent): Set<string> {
  return new Set([
    ...(content.instructions === '' ? [] : [`i\u0000${content.instructions}`]),
    ...content.updateInstructions.map((text) => `u\u0000${text}`),
    ...content.tools.map((tool) => `t\u0000${tool}`),
    ...content.handoffTargets.map((target) => `h\u0000${target}`),
  ])
}

function contentFromParts(all: Iterable<string>, systems: readonly string[]): ConfigContent {
  const every = [...all]
  const of = (kind: string) =>
    every
      .filter((part) => part.startsWith(`${kind}\u0000`))
      .map((part) => part.slice(2))
      .sort()
  return {
    instructions: systems.join('\n\n'),
    updateInstructions: of('u'),
    tools: of('t'),
    handoffTargets: of('h'),
  }
}

export function whatChanged(before: ConfigContent, after: ConfigContent): WhatChanged {
  return {
    instructions: setChange(sentences(before.instructions), sentences(after.instructions)),
    updateInstructions: setChange(before.updateInstructions, after.updateInstructions),
    tools: setChange(before.tools, after.tools),
    handoffTargets: setChange(before.handoffTargets, after.handoffTargets),
  }
}

/** The sentences of instruction text: each line split after `.`, `!` or `?`. */
export function sentences(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '')
}

function setChange(before: readonly string[], after: readonly string[]): SetChange {
  const had = new Set(before)
  const has = new Set(after)
  return {
    added: [...has].filter((item) => !had.has(item)),
    removed: [...had].filter((item) => !has.has(item)),
  }
}

/** An agent with this many fingerprints, most of them seen in one call, probably has per-call values in its prompt. */
const suspiciousFingerprints = 10

/**
 * Said of an agent whose fingerprints look like per-call values the normalisation does not know
 * (most seen in one call): they are no configurations, and figures would compare call with call.
 */
export function perCallValuesWarning(fingerprints: readonly FingerprintSeen[]): string | null {
  const once = fingerprints.filter((entry) => entry.conversations === 1).length
  return fingerprints.length >= suspiciousFingerprints && once * 2 > fingerprints.length
    ? `${once} of ${fingerprints.length} fingerprints were seen in one conversation only: the instructions probably carry per-call values the normalisation does not know (docs/metrics.md, "Agent versions"); no figures compared`
    : null
}
