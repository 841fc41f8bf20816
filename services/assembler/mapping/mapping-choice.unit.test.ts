import { describe, expect, it } from 'vitest'
import { parseSourceMappings } from './mapping-choice.ts'

describe('parseSourceMappings', () => {
  it('reads source:mapping pairs', () => {
    expect(parseSourceMappings(' lk:livekit-agents-1.7, bot:pipecat-1.x ,')).toEqual(
      new Map([
        ['lk', 'livekit-agents-1.7'],
        ['bot', 'pipecat-1.x'],
      ]),
    )
    expect(parseSourceMappings('')).toEqual(new Map())
  })
  it('refuses an unknown mapping or a pair without a source', () => {
    expect(() => parseSourceMappings('lk:livekit-agents-9')).toThrow(/unknown mapping/)
    expect(() => parseSourceMappings(':pipecat-1.x')).toThrow(/source:mapping/)
  })
})
