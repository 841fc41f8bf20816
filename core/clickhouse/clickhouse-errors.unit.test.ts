import { describe, expect, it } from 'vitest'
import { classifyClickHouseError } from './clickhouse-errors.ts'

// Shapes of the errors as they arrive: @clickhouse/client (code as a string), chDB's raw insert
// (clickhouseCode), a socket error (no server code).
const tooManyPartitions =
  "Code: 252. DB::Exception: Too many partitions for single INSERT block (more than 100). The limit is controlled by 'max_partitions_per_insert_block' setting."
const tooManyParts =
  'Code: 252. DB::Exception: Too many parts (3001 with average size of 1.00 KiB) in table. Merges are processing significantly slower than inserts.'

describe('classifyClickHouseError', () => {
  it.each([
    ['parse error, server', { code: '27', message: 'Cannot parse input' }, 'data', false],
    ['type mismatch, number code', { code: 53 }, 'data', false],
    ['parse error, chDB', { code: 'CHDB_INSERT', clickhouseCode: 27 }, 'data', false],
    ['string too large', { code: '131' }, 'data', false],
    ['constraint violated', { code: '469' }, 'data', false],
    [
      'too many partitions, chDB',
      { code: 'CHDB_INSERT', clickhouseCode: 252, message: tooManyPartitions },
      'shape',
      false,
    ],
    ['too many partitions, server', { code: '252', message: tooManyPartitions }, 'shape', false],
    ['too many parts (merges behind)', { code: '252', message: tooManyParts }, 'transient', false],
    ['too many rows', { code: '158' }, 'shape', false],
    ['too many bytes', { code: '307' }, 'shape', false],
    ['too many rows or bytes', { code: '396' }, 'shape', false],
    ['unknown table', { code: '60' }, 'transient', true],
    ['unknown table, chDB', { code: 'CHDB_INSERT', clickhouseCode: 60 }, 'transient', true],
    ['authentication failed', { code: '516' }, 'transient', true],
    ['read-only', { code: '164' }, 'transient', true],
    ['memory limit', { code: '241' }, 'transient', false],
    ['timeout', { code: '159' }, 'transient', false],
    ['socket refused', new Error('connect ECONNREFUSED 127.0.0.1:8123'), 'transient', false],
    ['not an error at all', undefined, 'transient', false],
    ['an unknown code', { code: '99999' }, 'transient', false],
  ])('%s -> %s', (_name, error, expectedClass, needsOperator) => {
    const kind = classifyClickHouseError(error)
    expect(kind.class).toBe(expectedClass)
    expect(kind.needsOperator).toBe(needsOperator)
  })
})
