import { Counter, Histogram, type Registry } from '../../../core/runtime/metrics.ts'
import type { ConversationRow } from '../transform/table-rows.ts'
import { gapE2eMarginMs } from '../transform/turn-taking.ts'

// How the live conversations went, per agent, from their turn-taking columns (turn-taking.ts):
// counters whose ratios are the quality dashboard's figures (dead-air share, barge-ins per agent
// turn, talk ratio) as Prometheus can alert on them, within a minute rather than a ClickHouse
// rule's window. A conversation without measurable speech counts in none of them.

/** Silence buckets (seconds): a turn's normal pause is under 2 s; dead air starts at 3 s by default. */
export const silenceBuckets = [0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60]

export function createTurnTakingMetrics(registry: Registry) {
  const perAgent = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ['agent'] as const, registers: [registry] })
  return {
    conversations: perAgent(
      'voice_conversations_with_speech_total',
      'Live conversations with measurable speaking times (the denominator of the turn-taking ratios), by agent',
    ),
    deadAirConversations: perAgent(
      'voice_dead_air_conversations_total',
      'Live conversations with at least one silence longer than DEAD_AIR_SECONDS, by agent',
    ),
    deadAirSilences: perAgent(
      'voice_dead_air_silences_total',
      'Silences longer than DEAD_AIR_SECONDS in live conversations, by agent',
    ),
    agentTurns: perAgent(
      'voice_speech_agent_turns_total',
      'Agent turns of live conversations with speech (agent_turn_count: the denominator of barge-ins and cut-ins per agent turn, as on the quality dashboard), by agent',
    ),
    bargeIns: new Counter({
      name: 'voice_caller_barge_ins_total',
      help: 'Caller barge-ins (the caller starts while the agent speaks), by agent and whether the agent yielded (its message interrupted)',
      labelNames: ['agent', 'yielded'] as const,
      registers: [registry],
    }),
    cutIns: perAgent(
      'voice_agent_cut_ins_total',
      'Agent cut-ins (the agent starts while the caller speaks), by agent',
    ),
    gapDisagreements: perAgent(
      'voice_gap_e2e_disagreements_total',
      `Agent turns whose response gap and e2e_latency are more than ${gapE2eMarginMs} ms apart, by agent`,
    ),
    talkSeconds: new Counter({
      name: 'voice_talk_seconds_total',
      help: 'Speaking time in live conversations (seconds), by agent and side (agent, caller): the talk ratio is agent / (agent + caller)',
      labelNames: ['agent', 'side'] as const,
      registers: [registry],
    }),
    longestSilence: new Histogram({
      name: 'voice_longest_silence_seconds',
      help: 'The longest silence of each live conversation with speech (seconds), by agent',
      labelNames: ['agent'] as const,
      buckets: silenceBuckets,
      registers: [registry],
    }),
  }
}

export type TurnTakingMetrics = ReturnType<typeof createTurnTakingMetrics>

/** Counts one live conversation's turn-taking for its (label-limited) agent. */
export function recordTurnTaking(metrics: TurnTakingMetrics, row: ConversationRow, agent: string): void {
  if (row.agent_talk_ms === null || row.caller_talk_ms === null) return
  const labels = { agent }
  metrics.conversations.inc(labels)
  const deadAir = row.dead_air_count ?? 0
  if (deadAir > 0) metrics.deadAirConversations.inc(labels)
  metrics.deadAirSilences.inc(labels, deadAir)
  metrics.agentTurns.inc(labels, row.agent_turn_count)
  const bargeIns = row.caller_barge_ins ?? 0
  const yielded = row.barge_ins_yielded ?? 0
  metrics.bargeIns.inc({ agent, yielded: 'true' }, yielded)
  metrics.bargeIns.inc({ agent, yielded: 'false' }, bargeIns - yielded)
  metrics.cutIns.inc(labels, row.agent_cut_ins ?? 0)
  metrics.gapDisagreements.inc(labels, row.gap_e2e_disagreements ?? 0)
  metrics.talkSeconds.inc({ agent, side: 'agent' }, row.agent_talk_ms / 1000)
  metrics.talkSeconds.inc({ agent, side: 'caller' }, row.caller_talk_ms / 1000)
  if (row.longest_silence_ms !== null) metrics.longestSilence.observe(labels, row.longest_silence_ms / 1000)
}
