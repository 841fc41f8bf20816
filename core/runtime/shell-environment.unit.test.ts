import { describe, expect, it } from 'vitest'
import { environmentPairs, environmentPrefix } from './shell-environment.ts'

describe('environment as a start script writes it', () => {
  it('writes NAME=value pairs in order, and reads them back', () => {
    const environment = { MALLOC_ARENA_MAX: '2', JE_MALLOC_CONF: 'dirty_decay_ms:250' }
    expect(environmentPrefix(environment)).toBe('MALLOC_ARENA_MAX=2 JE_MALLOC_CONF=dirty_decay_ms:250')
    expect(environmentPairs(environmentPrefix(environment))).toEqual(environment)
  })

  it('keeps what follows the first = as the value; nothing for an empty or missing text', () => {
    expect(environmentPairs('profiles=<default><x>1</x></default>  A=b=c')).toEqual({
      profiles: '<default><x>1</x></default>',
      A: 'b=c',
    })
    expect(environmentPairs('')).toEqual({})
    expect(environmentPairs(undefined)).toEqual({})
    expect(environmentPrefix({})).toBe('')
  })
})
