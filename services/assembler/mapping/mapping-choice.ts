import type { ConversationMapping } from './conversation-mapping.ts'
import { mappingById, mappings } from './mappings.ts'
import type { TraceView } from './trace-view.ts'

// Which mapping reads a trace (docs/otlp.md §8, question 4). Neither framework sends its version,
// so: the source's configured mapping (ASSEMBLER_SOURCE_MAPPINGS) when it has one; else detection
// from the spans: a framework by its instrumentation scope or span names (1 point), a version range
// by an attribute key only it uses (2 points); the highest score wins, a tie the newest range.
export function chooseMapping(
  trace: TraceView,
  sourceMappings: ReadonlyMap<string, string> = new Map(),
): ConversationMapping | null {
  const configured = sourceMappings.get(trace.source)
  if (configured !== undefined) return mappingById(configured) ?? null
  let best: ConversationMapping | null = null
  let bestScore = 0
  for (const mapping of mappings) {
    const score = mapping.score(trace)
    if (score > bestScore) {
      best = mapping
      bestScore = score
    }
  }
  return best
}

/**
 * ASSEMBLER_SOURCE_MAPPINGS: `source:mapping` pairs separated by commas, e.g.
 * `lk-prod:livekit-agents-1.7,bot:pipecat-1.x`. An unknown mapping id is an error at start.
 */
export function parseSourceMappings(text: string): Map<string, string> {
  const result = new Map<string, string>()
  for (const pair of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = pair.lastIndexOf(':')
    const source = pair.slice(0, at).trim()
    const id = pair.slice(at + 1).trim()
    if (at <= 0 || !id) throw new Error(`"${pair}": expected source:mapping`)
    if (!mappingById(id)) throw new Error(`"${pair}": unknown mapping ${id}`)
    result.set(source, id)
  }
  return result
}
