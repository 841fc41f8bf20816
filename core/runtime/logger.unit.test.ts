import { describe, expect, it } from 'vitest'
import { chooseLogFormat } from './logger.ts'

describe('chooseLogFormat', () => {
  it.each([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['', false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('LOG_FORMAT=%j, stdout a terminal: %s -> %s', (setting, terminal, expected) => {
    expect(chooseLogFormat(setting, terminal)).toBe(expected)
  })
})
