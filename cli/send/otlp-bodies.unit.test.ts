import { describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { otlpBodies } from './otlp-bodies.ts'

describe('otlpBodies (send --as-otlp)', () => {
  it('sends each conversation as its export requests, to the traces URL, its root span last', () => {
    const events = generateConversations({ count: 3, seed: 9, historyItems: 20 })
    const bodies = otlpBodies(events, 'http://localhost:8080/v1/traces?token=t')
    expect(bodies.length).toBeGreaterThan(3)
    expect(new Set(bodies.map((body) => body.url))).toEqual(
      new Set(['http://localhost:8080/v1/traces?token=t']),
    )
    const requests = bodies.map((body) => JSON.parse(body.body))
    const names = requests.map((request) =>
      request.resourceSpans.flatMap((resource: { scopeSpans: { spans: { name: string }[] }[] }) =>
        resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name)),
      ),
    )
    const roots = names.flatMap((spans, index) => (spans.includes('agent_session') ? [index] : []))
    expect(roots.length).toBe(3)
    // one trace per conversation, every request of it before its root's
    const traceOf = (index: number) => requests[index].resourceSpans[0].scopeSpans[0].spans[0].traceId
    for (const root of roots)
      requests.forEach((_request, index) => {
        if (traceOf(index) === traceOf(root)) expect(index).toBeLessThanOrEqual(root)
      })
    expect(roots.at(-1)).toBe(requests.length - 1)
  })
})
