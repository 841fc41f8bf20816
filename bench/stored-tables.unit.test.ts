import { describe, expect, it } from 'vitest'
import { tableNames } from '../services/worker/transform/table-rows.ts'
import { baseTableNames, storedTableNames } from './stored-tables.ts'

describe('stored tables', () => {
  it('leaves out every Null feed the worker inserts into, and adds the rollups the feeds fill', () => {
    expect(tableNames).toContain('agent_latency_feed')
    expect(tableNames).toContain('conversation_latency_feed')
    expect(baseTableNames.filter((table) => table.endsWith('_feed'))).toEqual([])
    expect(baseTableNames).toContain('conversations')
    expect(storedTableNames).toEqual([...baseTableNames, 'agent_latency_minute', 'conversation_latency'])
  })
})
