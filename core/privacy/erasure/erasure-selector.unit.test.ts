import { describe, expect, it } from 'vitest'
import { hashPhone } from '../pii/pii-redaction.ts'
import {
  messageNeedles,
  phoneForms,
  selectorCondition,
  selectorFromOptions,
  selectorHash,
  sessionHash,
} from './erasure-selector.ts'

describe('selectorFromOptions', () => {
  it('takes exactly one selector', () => {
    expect(selectorFromOptions({ phone: ' +1 555 0100 ' })).toEqual({ kind: 'phone', value: '+1 555 0100' })
    expect(selectorFromOptions({ sessionId: 's-1' })).toEqual({ kind: 'session_id', value: 's-1' })
    expect(selectorFromOptions({ callSid: 'CA1' })).toEqual({ kind: 'call_sid', value: 'CA1' })
    expect(() => selectorFromOptions({})).toThrow(/exactly one.*got 0/)
    expect(() => selectorFromOptions({ phone: '+1', sessionId: 's' })).toThrow(/exactly one.*got 2/)
  })

  it('refuses an empty value and a phone without digits', () => {
    expect(() => selectorFromOptions({ sessionId: '  ' })).toThrow(/empty/)
    expect(() => selectorFromOptions({ phone: 'unknown' })).toThrow(/no digits/)
  })

  it('needs an agent range with both ends, the end after the start', () => {
    expect(
      selectorFromOptions({ agent: 'a-1', from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }),
    ).toEqual({
      kind: 'agent_range',
      value: 'a-1',
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
    })
    expect(() => selectorFromOptions({ agent: 'a-1', from: '2026-11-01T00:00:00Z' })).toThrow(
      /--to is missing/,
    )
    expect(() => selectorFromOptions({ agent: 'a-1', from: 'yesterday', to: '2026-11-02' })).toThrow(
      /--from is not a date-time/,
    )
    expect(() =>
      selectorFromOptions({ agent: 'a-1', from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }),
    ).toThrow(/after --from/)
  })
})

describe('phone forms and conditions', () => {
  it('matches a number in any formatting, and its HMAC under the same key as the ingress', () => {
    expect(phoneForms('+1 (555) 010-0100', undefined)).toEqual({ plain: '+15550100100' })
    expect(phoneForms('+1 (555) 010-0100', 'k'.repeat(32)).hashed).toBe(
      hashPhone('+15550100100', 'k'.repeat(32)),
    )
    const condition = selectorCondition({ kind: 'phone', value: '+1 555 010 0100' }, 'k'.repeat(32))
    expect(condition.params.phones).toEqual(['+15550100100', hashPhone('+15550100100', 'k'.repeat(32))])
    expect(condition.where).toContain('from_number')
    expect(condition.where).toContain('to_number')
  })

  it('puts the values in parameters, never in the SQL text', () => {
    const condition = selectorCondition({ kind: 'call_sid', value: "x' OR 1=1 --" }, undefined)
    expect(condition.where).not.toContain('OR 1=1')
    expect(condition.params).toEqual({ value: "x' OR 1=1 --" })
  })
})

describe('hashes', () => {
  it('keys the audit hash, so equal values under another key differ, and formatting does not matter', () => {
    const a = selectorHash({ kind: 'phone', value: '+1 555 0100' }, 'key-a'.repeat(8))
    expect(a).toBe(selectorHash({ kind: 'phone', value: '+15550100' }, 'key-a'.repeat(8)))
    expect(a).not.toBe(selectorHash({ kind: 'phone', value: '+15550100' }, 'key-b'.repeat(8)))
    expect(a).not.toContain('5550100')
  })

  it('keys forgotten conversations by SHA-256 of the session id', () => {
    expect(sessionHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })

  it('looks for session ids, the number in every form, or the call SID in Kafka messages', () => {
    const needles = messageNeedles({ kind: 'phone', value: '+1 555 0100' }, ['s-1'], undefined).map(String)
    expect(needles).toEqual(['s-1', '+1 555 0100', '+15550100'])
  })
})
