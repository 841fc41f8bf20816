import { describe, expect, it } from 'vitest'
import { oneAtATime } from './write-route.ts'

describe('oneAtATime', () => {
  it('starts each request after the one before it finished, a failed one too', async () => {
    const inTurn = oneAtATime()
    const events: string[] = []
    const slow = (name: string, fail = false) =>
      inTurn(async () => {
        events.push(`start ${name}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
        events.push(`end ${name}`)
        if (fail) throw new Error(name)
        return name
      })
    const results = await Promise.allSettled([slow('a'), slow('b', true), slow('c')])
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c'])
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  })
})
