import { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { addRetentionOptions, parseDays, retentionFromOptions } from './retention-options.ts'

describe('retention options', () => {
  it('parses whole days, 0 included, and refuses anything else', () => {
    expect(parseDays('0')).toBe(0)
    expect(parseDays('30')).toBe(30)
    for (const bad of ['-1', '1.5', 'ten', '']) expect(() => parseDays(bad)).toThrow(/whole number of days/)
  })

  it('leaves retention unset unless a flag is given, whatever the environment says', () => {
    const parse = (...args: string[]) =>
      retentionFromOptions(
        addRetentionOptions(new Command()).exitOverride().parse(args, { from: 'user' }).opts(),
      )
    expect(parse()).toEqual({ conversationDays: undefined, rollupDays: undefined })
    expect(parse('--ttl-days', '0')).toEqual({ conversationDays: 0, rollupDays: undefined })
    expect(parse('--ttl-days', '30', '--rollup-ttl-days', '400')).toEqual({
      conversationDays: 30,
      rollupDays: 400,
    })
  })
})
