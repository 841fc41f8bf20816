import { describe, expect, it } from 'vitest'
import { diagnoseClickHouseServer, diagnoseEmbeddedClickHouse } from './clickhouse-diagnosis.ts'
import { pidsLockingInode } from './data-dir-lock-holder.ts'

describe('diagnoseEmbeddedClickHouse', () => {
  it('is content when no other process holds the data directory', () => {
    expect(
      diagnoseEmbeddedClickHouse('./data/clickhouse', '/repo/data/clickhouse', undefined),
    ).toBeUndefined()
  })

  it('names the process that holds the data directory and what to do', () => {
    const found = diagnoseEmbeddedClickHouse('./data/clickhouse', '/repo/data/clickhouse', {
      pid: 4242,
      command: 'node dev-server/main.ts',
    })
    expect(found).toMatchObject({ variable: 'CLICKHOUSE_DATA_DIR', retriable: false })
    expect(found!.message).toContain(
      'CLICKHOUSE_DATA_DIR=./data/clickhouse (/repo/data/clickhouse) is locked by process 4242 (node dev-server/main.ts)',
    )
    expect(found!.message).toContain('kill 4242')
    expect(found!.message).toContain('voice-analytics query')
  })
})

describe('pidsLockingInode', () => {
  const locks = [
    '1: FLOCK  ADVISORY  WRITE 5714 fe:00:9986051 0 EOF',
    '2: POSIX  ADVISORY  WRITE 5540 fe:00:5334378 0 EOF',
    '3: FLOCK  ADVISORY  WRITE 10794 fe:00:9978955 0 EOF',
    '3: -> FLOCK  ADVISORY  WRITE 10800 fe:00:9978955 0 EOF',
  ].join('\n')
  it('finds the pid holding a lock on the inode, not one waiting for it', () => {
    expect(pidsLockingInode(locks, 9978955)).toEqual([10794])
    expect(pidsLockingInode(locks, 1)).toEqual([])
    expect(pidsLockingInode('', 9978955)).toEqual([])
  })
})

describe('diagnoseClickHouseServer', () => {
  const url = 'http://ch-user:ch-pass@clickhouse.example:8123'
  it('is content when SELECT 1 answers 1', () => {
    expect(
      diagnoseClickHouseServer(url, 'ch-user', {
        kind: 'answered',
        status: 200,
        contentType: 'text/plain',
        bodyStart: '1\n',
      }),
    ).toBeUndefined()
  })
  it('reports a refused connection as unreachable, to be retried', () => {
    const found = diagnoseClickHouseServer(url, 'ch-user', {
      kind: 'unreachable',
      reason: 'connection refused: nothing listens there',
    })
    expect(found).toMatchObject({ variable: 'CLICKHOUSE_URL', retriable: true })
    expect(found!.message).toContain('unreachable at http://clickhouse.example:8123')
    expect(found!.message).not.toContain('ch-pass')
  })
  it('reports a refused user by name, never the password', () => {
    const found = diagnoseClickHouseServer(url, 'ch-user', {
      kind: 'answered',
      status: 516,
      contentType: 'text/plain',
      bodyStart: 'Code: 516. DB::Exception: ch-user: Authentication failed. (AUTHENTICATION_FAILED)',
    })
    expect(found).toMatchObject({ variable: 'CLICKHOUSE_USER', retriable: false })
    expect(found!.message).toContain('refused user "ch-user"')
    expect(found!.message).toContain('CLICKHOUSE_PASSWORD')
    expect(found!.message).not.toContain('ch-pass')
  })
})
