import { isAgent, isMessage, isUser, type MetricFlag } from './metric-quality.ts'
import type { ConversationItemRow } from './table-rows.ts'
import type { Speech } from './turn-taking.ts'

// Who spoke when, read from a conversation's item rows for the turn-taking figures: each agent or
// caller message with a start of speech. Speech the metric flags mark impossible stays out and is
// counted (the item keeps its flag and its values, as every flagged metric does).

const impossibleSpeech: readonly MetricFlag[] = [
  'speaking_interval_reversed',
  'speaking_outside_conversation',
]

export function conversationSpeech(items: readonly ConversationItemRow[]): {
  speech: Speech[]
  flagged: number
} {
  const speech: Speech[] = []
  let flagged = 0
  for (const item of items) {
    if (item.started_speaking_at === null || !isMessage(item)) continue
    const side = isAgent(item) ? 'agent' : isUser(item) ? 'caller' : undefined
    if (side === undefined) continue
    if (item.metric_flags.some((flag) => impossibleSpeech.includes(flag as MetricFlag))) {
      flagged++
      continue
    }
    speech.push({
      side,
      startMs: item.started_speaking_at,
      stopMs: item.stopped_speaking_at ?? undefined,
      interrupted: item.interrupted === true,
      e2eLatencyMs: item.e2e_latency === null ? undefined : item.e2e_latency * 1000,
    })
  }
  return { speech, flagged }
}
