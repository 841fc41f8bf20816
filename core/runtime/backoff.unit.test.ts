import { describe, expect, it } from 'vitest'
import { backoffDelay } from './backoff.ts'

describe('backoffDelay', () => {
  const settings = { baseMs: 100, maxMs: 1000 }
  it('doubles per attempt between half and all of the ceiling, up to the maximum', () => {
    expect(backoffDelay(1, settings, () => 0)).toBe(50)
    expect(backoffDelay(1, settings, () => 1)).toBe(100)
    expect(backoffDelay(3, settings, () => 1)).toBe(400)
    expect(backoffDelay(30, settings, () => 1)).toBe(1000)
    expect(backoffDelay(30, settings, () => 0)).toBe(500)
  })
})
