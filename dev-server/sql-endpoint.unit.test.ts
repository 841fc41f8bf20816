import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../core/clickhouse/clickhouse.ts'
import { type SqlEndpoint, startSqlEndpoint } from './sql-endpoint.ts'

// A query the read-only check refuses (a ReadOnlyQueryRefused, recognised by its class) is the
// asker's fault: 400 with the reason. Anything else that fails is the endpoint's: 500.
describe('the SQL endpoint answers a failed query', () => {
  let endpoint: SqlEndpoint
  const session = {
    query: async () => {
      throw new Error('the engine failed')
    },
    close: async () => {},
  } as unknown as ClickHouseClient
  beforeAll(async () => {
    endpoint = await startSqlEndpoint(() => session, 0, 'token')
  })
  afterAll(() => endpoint?.close())

  const ask = async (format: string) => {
    const url = new URL('/', endpoint.url)
    url.searchParams.set('query', 'SELECT 1')
    url.searchParams.set('default_format', format)
    const response = await fetch(url, { headers: { authorization: 'Bearer token' } })
    return { status: response.status, text: (await response.text()).trim() }
  }

  it('400 for a query the read-only check refuses', async () => {
    expect(await ask('TSV; DROP')).toEqual({ status: 400, text: '"TSV; DROP" is not an output format name' })
  })

  it('500 for any other failure', async () => {
    expect(await ask('TSV')).toEqual({ status: 500, text: 'the engine failed' })
  })
})
