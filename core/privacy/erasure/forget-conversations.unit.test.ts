import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteStatement } from './forget-conversations.ts'

// Where `forget` removes rows: the table itself on one server, the shards' local tables ON CLUSTER
// behind a Distributed table (a mutation on a Distributed table fails). Each statement parses in the
// engine (EXPLAIN AST in chDB, which parses cluster DDL it cannot run).
describe('deleteStatement', () => {
  let dir: string
  let session: Session
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'va-forget-ddl-'))
    session = new Session(dir)
  })
  afterAll(() => {
    session?.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const parses = (statement: string) =>
    session.query(`EXPLAIN AST ${statement.replace('{ids:Array(String)}', "['s-1']")}`, 'TSVRaw')

  it('deletes from the table on one server', () => {
    const statement = deleteStatement({ database: 'voice_analytics' }, 'conversations', false)
    expect(statement).toBe(
      'ALTER TABLE voice_analytics.conversations DELETE WHERE session_id IN {ids:Array(String)}',
    )
    expect(parses(statement)).toMatch(/AlterQuery/)
  })

  it("deletes from the shards' local tables on every node behind a Distributed table", () => {
    const statement = deleteStatement(
      { database: 'voice_analytics', cluster: 'va_cluster' },
      'conversations',
      true,
    )
    expect(statement).toBe(
      'ALTER TABLE voice_analytics.conversations_local ON CLUSTER va_cluster DELETE WHERE session_id IN {ids:Array(String)}',
    )
    expect(parses(statement)).toMatch(/AlterQuery/)
  })

  it('leaves a table kept whole on every node (not Distributed) as it is, in cluster mode too', () => {
    expect(deleteStatement({ database: 'd', cluster: 'c' }, 'kept_everywhere', false)).toBe(
      'ALTER TABLE d.kept_everywhere DELETE WHERE session_id IN {ids:Array(String)}',
    )
  })
})
