import { describe, expect, it } from 'vitest'
import { erasureVerdict } from './erasure-verdict.ts'

describe('erasureVerdict', () => {
  it('says nothing is left when every row went, and counts what each table lost', () => {
    expect(
      erasureVerdict({
        found: { conversations: 3, conversation_items: 40, handoffs: 0 },
        remainingOfSessions: { conversations: 0, conversation_items: 0, handoffs: 0 },
        laterSessions: 0,
        later: {},
      }),
    ).toEqual({ removed: { conversations: 3, conversation_items: 40 }, remaining: {}, text: 'nothing left' })
  })

  it('names rows of forgotten conversations that are still there', () => {
    const verdict = erasureVerdict({
      found: { conversations: 2 },
      remainingOfSessions: { conversations: 1 },
      laterSessions: 0,
      later: {},
    })
    expect(verdict.removed).toEqual({ conversations: 1 })
    expect(verdict.remaining).toEqual({ conversations: 1 })
    expect(verdict.text).toMatch(/still stored: conversations 1 \(run forget again\)/)
  })

  it('reports a call stored after the request apart, as not removed by this erasure', () => {
    const verdict = erasureVerdict({
      found: { conversations: 1 },
      remainingOfSessions: { conversations: 0 },
      laterSessions: 1,
      later: { conversations: 1, conversation_items: 12 },
    })
    expect(verdict.remaining).toEqual({
      'conversations (stored after the request)': 1,
      'conversation_items (stored after the request)': 12,
    })
    expect(verdict.text).toMatch(/^1 conversation\(s\) of this caller stored after the request/)
  })
})
