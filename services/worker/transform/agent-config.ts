import { createHash } from 'node:crypto'
import type { HistoryItem } from '../../../core/event/conversation-complete.types.ts'

// Which configuration the agent ran a conversation with (#32), read from its history: the
// instructions of its System message and of its AgentConfigUpdate items, the tools those added and
// the agents it handed off to. Versions are inferred from this, never declared: every conversation
// carries a fingerprint of it, and two conversations of one agent with the same fingerprint ran the
// same configuration. Pure (its cache of masked lines changes no result); docs/metrics.md ("Agent
// versions") states the rule.
//
// The System message of a real call also carries the call's own values (the platform appends a
// "# Call context" section: channel, local time, caller number, `Variable first_name: Hugo`, ...),
// and an update may name the caller's policy number. Hashed as they are, every call would be a new
// version, so instruction text is normalised first:
//  1. a section whose heading is "Call context" (also "Caller", "Session" or "Conversation
//     context"; any heading level) is dropped up to the next heading of its level or above;
//  2. `Variable <name>: <value>` keeps the name and drops the value;
//  3. per-call values are masked: UUIDs, e-mail addresses, dates and times (ISO, `9 June 2025`,
//     `08:30`), phone numbers (7 or more digits with separators) and identifiers that mix letters
//     with 4 or more digits in a row (`HI7730145`); a plain number such as `300 euros` stays, as it
//     is part of what the agent is told;
//  4. whitespace is collapsed in each line; empty lines are dropped; the fingerprint also ignores
//     where the lines break.
// Tools and handoff targets are sets: trimmed, without duplicates, sorted. A handoff's own
// `instructions` are left out (the handing-off agent writes them for that one call), and so are the
// tools a conversation called (they depend on the call, not on the configuration).
// A conversation with none of these (no System message, no update, no handoff) has no fingerprint
// (NULL): it says nothing about its configuration, and counting it as a version of its own would
// report a change wherever such calls come and go.

export interface AgentConfig {
  /** The System messages' instructions, normalised (several distinct ones joined by an empty line). */
  instructions: string
  /** Each AgentConfigUpdate's instructions, normalised: distinct and sorted. */
  updateInstructions: string[]
  /** tools_added of the conversation's items: distinct and sorted. */
  tools: string[]
  /** handoff_to_agent_id of its handoffs: distinct and sorted. */
  handoffTargets: string[]
}

const systemRole = /^system$/i
const messageKind = /^message$/i
const configUpdateKind = /^agentconfigupdate$/i

/** The conversation's configuration as its history shows it; null when it shows none. */
export function agentConfig(history: readonly HistoryItem[]): AgentConfig | null {
  const system: string[] = []
  const updates = new Set<string>()
  const tools = new Set<string>()
  const targets = new Set<string>()
  for (const item of history) {
    const kind = item.kind ?? null
    if (item.role && systemRole.test(item.role) && (kind === null || messageKind.test(kind))) {
      const text = normalisedInstructions(item.content ?? '')
      if (text !== '' && !system.includes(text)) system.push(text)
    }
    if (kind !== null && configUpdateKind.test(kind)) {
      const text = normalisedInstructions(item.instructions ?? '')
      if (text !== '') updates.add(text)
    }
    for (const tool of item.tools_added ?? []) if (tool.trim() !== '') tools.add(tool.trim())
    const target = item.handoff_to_agent_id?.trim()
    if (target) targets.add(target)
  }
  if (system.length === 0 && updates.size === 0 && tools.size === 0 && targets.size === 0) return null
  return {
    instructions: system.join('\n\n'),
    updateInstructions: [...updates].sort(),
    tools: [...tools].sort(),
    handoffTargets: [...targets].sort(),
  }
}

/** 16 hex digits (64 bits of SHA-256) of the configuration, line breaks left out. */
export function configFingerprint(config: AgentConfig): string {
  // Normalised lines hold single spaces and no line break: a line break is the only spacing left.
  const flat = (text: string) => text.replaceAll('\n', ' ')
  const hash = createHash('sha256').update(flat(config.instructions))
  for (const group of [config.updateInstructions.map(flat), config.tools, config.handoffTargets]) {
    hash.update('\u0001')
    for (const item of group) hash.update(item).update('\u0000')
  }
  return hash.digest('hex').slice(0, 16)
}

const callContextHeading = /^\s*(#{1,6})\s*(call|caller|session|conversation)\s+context\b/i
const heading = /^\s*(#{1,6})\s/
const variableLine = /^(\s*(?:-\s*)?variable\s+[\w.-]+\s*:).*$/i
const month =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
/** In order: each pattern sees the text the ones before it left. */
const masks: ReadonlyArray<[RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{id}'],
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '{email}'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '{date}'],
  [new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\.?\\s+${month}\\.?(?:\\s+\\d{4})?\\b`, 'gi'), '{date}'],
  [new RegExp(`\\b${month}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`, 'gi'), '{date}'],
  [/\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b/g, '{date}'],
  [/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?\b/gi, '{time}'],
  [/(?:\+|\b)\d(?:[\s()./-]*\d){6,}\b/g, '{phone}'],
  [/\b(?=[\w-]*[a-z])[\w-]*\d{4,}[\w-]*\b/gi, '{id}'],
]

/** Instruction text without what changes from call to call (the rule above), line by line. */
export function normalisedInstructions(text: string): string {
  const kept: string[] = []
  let skippedLevel = 0 // the heading level of the per-call section being dropped; 0: none
  for (const line of text.split(/\r?\n/)) {
    const level = heading.exec(line)?.[1]?.length ?? 0
    if (skippedLevel > 0) {
      if (level === 0 || level > skippedLevel) continue
      skippedLevel = 0
    }
    const context = callContextHeading.exec(line)
    if (context) {
      skippedLevel = context[1]!.length
      continue
    }
    const normalised = normalisedLine(line)
    if (normalised !== '') kept.push(normalised)
  }
  return kept.join('\n')
}

// The same prompt lines come in every call of an agent, and the masks are most of the transform's
// work on them: each line is masked once while it keeps coming (the same line, the same result).
const lineCache = new Map<string, string>()
const lineCacheLimit = 5_000

function normalisedLine(line: string): string {
  const cached = lineCache.get(line)
  if (cached !== undefined) return cached
  let normalised = line.replace(variableLine, '$1')
  for (const [pattern, replacement] of masks) normalised = normalised.replace(pattern, replacement)
  normalised = normalised.replace(/\s+/g, ' ').trim()
  if (lineCache.size >= lineCacheLimit) lineCache.clear()
  lineCache.set(line, normalised)
  return normalised
}
