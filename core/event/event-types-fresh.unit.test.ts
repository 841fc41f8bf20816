import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderEventTypes } from './render-event-types.ts'

describe('generated event types', () => {
  it('match the Avro schema (run `npm run generate` after changing it)', () => {
    const committed = readFileSync(new URL('./conversation-complete.types.ts', import.meta.url), 'utf8')
    expect(committed).toBe(renderEventTypes())
  })
})
