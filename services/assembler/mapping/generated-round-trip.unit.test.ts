import { describe, expect, it } from 'vitest'
import type { HistoryItem } from '../../../core/event/conversation-complete.types.ts'
import { generateConversations } from '../../../generator/conversation-generator.ts'
import { assembledAsLivekitTrace } from '../../../test/support/otlp-fixture.ts'

// Generated conversations of every shape (tool calls, handoffs, config updates, interruptions,
// failed rooms), traced as LiveKit Agents 1.7 would trace them (generator/livekit-trace.ts), sent
// in their exporter batches and assembled again: what the spans carry must come back as it was.
const events = generateConversations({ count: 60, seed: 341, historyItems: 40, handoffRate: 0.3 })

const kinds = (history: readonly HistoryItem[]) =>
  history.filter((item) => item.kind !== 'AgentHandoff').map((item) => `${item.kind}/${item.role}`)
const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null)

describe('generated conversations through LiveKit-shaped spans and the livekit-agents-1.7 mapping', () => {
  for (const [index, event] of events.entries())
    it(`conversation ${index} comes back with its turns, latencies and tool calls`, () => {
      const assembled = assembledAsLivekitTrace(event, 'livekit', 0)
      expect(assembled?.mapping.id).toBe('livekit-agents-1.7')
      const [conversation] = assembled!.conversations
      expect(conversation!.complete).toBe(true)
      const data = (conversation!.record as { data: { history: HistoryItem[]; agent_name?: string } }).data
      const original = event.data.history ?? []
      const said = (history: readonly HistoryItem[], role: string) =>
        history.filter((item) => item.kind === 'Message' && item.role === role).map((item) => item.content)
      expect(said(data.history, 'User')).toEqual(said(original, 'User'))
      expect(said(data.history, 'Assistant')).toEqual(said(original, 'Assistant'))
      const tools = (history: readonly HistoryItem[]) =>
        history
          .filter((item) => item.kind === 'FunctionCall')
          .map((item) => [item.tool_name, item.tool_call_id, item.tool_arguments_json])
      expect(tools(data.history)).toEqual(tools(original))
      const outputs = (history: readonly HistoryItem[]) =>
        history
          .filter((item) => item.kind === 'FunctionCallOutput')
          .map((item) => [item.tool_call_id, item.tool_output, item.tool_is_error ?? false])
      expect(outputs(data.history)).toEqual(outputs(original))
      const replies = (history: readonly HistoryItem[]) =>
        history.filter((item) => item.kind === 'Message' && item.role === 'Assistant')
      const back = replies(data.history)
      replies(original).forEach((item, turn) => {
        const metrics = back[turn]!.metrics ?? {}
        expect(metrics.llm_node_ttft, `turn ${turn} ttft`).toBeCloseTo(item.metrics!.llm_node_ttft!, 9)
        expect(metrics.tts_node_ttfb, `turn ${turn} ttfb`).toBeCloseTo(item.metrics!.tts_node_ttfb!, 9)
        if (metrics.e2e_latency != null)
          expect(metrics.e2e_latency).toBeCloseTo(item.metrics!.e2e_latency!, 9)
        expect(back[turn]!.interrupted ?? false).toBe(item.interrupted ?? false)
        expect(ms(metrics.started_speaking_at), `turn ${turn} started`).toBeCloseTo(
          ms(item.metrics!.started_speaking_at)!,
          -1,
        )
        expect(ms(metrics.stopped_speaking_at), `turn ${turn} stopped`).toBeCloseTo(
          ms(item.metrics!.stopped_speaking_at)!,
          -1,
        )
      })
      // e2e latency: kept on every reply that answers the caller, lost on the reply after a tool
      // call (LiveKit measures none there, docs/otlp.md §3.2)
      const direct = original.filter(
        (item, position) =>
          item.kind === 'Message' &&
          item.role === 'Assistant' &&
          item.metrics?.e2e_latency != null &&
          original.slice(0, position).findLast((earlier) => earlier.kind !== 'AgentConfigUpdate')?.kind !==
            'FunctionCallOutput',
      ).length
      expect(back.filter((item) => item.metrics?.e2e_latency != null).length).toBe(direct)
      expect(kinds(data.history).filter((kind) => kind !== 'Message/System')).toEqual(
        kinds(original).filter((kind) => kind !== 'Message/System'),
      )
    })
})
