import { describe, expect, it } from 'vitest'
import { diagnoseRegistry } from './registry-diagnosis.ts'

const json = (status: number, bodyStart: string) =>
  ({ kind: 'answered', status, contentType: 'application/json', bodyStart }) as const

describe('diagnoseRegistry', () => {
  it('is content with the list of subjects a Confluent-compatible registry gives', () => {
    expect(diagnoseRegistry('http://localhost:8081/apis/ccompat/v7', json(200, '[]'))).toBeUndefined()
    expect(
      diagnoseRegistry('http://localhost:8081/apis/ccompat/v7/', json(200, '["a-value"]')),
    ).toBeUndefined()
  })

  it('reports a 404 as a server that is not a Confluent-compatible API, with the Apicurio path to use', () => {
    const found = diagnoseRegistry(
      'http://localhost:8081',
      json(404, '{"detail":"NotFoundException: RESTEASY003210: Could not find resource"}'),
    )
    expect(found).toMatchObject({ variable: 'SCHEMA_REGISTRY_URL', retriable: false })
    expect(found!.message).toContain('SCHEMA_REGISTRY_URL')
    expect(found!.message).toContain('GET http://localhost:8081/subjects answered 404')
    expect(found!.message).toContain('not as a Confluent-compatible schema registry API')
    expect(found!.message).toContain('SCHEMA_REGISTRY_URL=http://localhost:8081/apis/ccompat/v7')
    expect(found!.message).not.toMatch(/unreachable/)
  })

  it('reports an HTML page as not a registry API', () => {
    const found = diagnoseRegistry('http://localhost:8081/ui', {
      kind: 'answered',
      status: 200,
      contentType: 'text/html; charset=utf-8',
      bodyStart: '<!doctype html><html>',
    })
    expect(found).toMatchObject({ retriable: false })
    expect(found!.message).toContain('answered 200 with an HTML page')
    expect(found!.message).toContain('GET http://localhost:8081/ui/subjects')
    expect(found!.message).toContain('http://localhost:8081/apis/ccompat/v7')
  })

  it('reports a refused connection as unreachable, to be retried', () => {
    const found = diagnoseRegistry('http://localhost:8081/apis/ccompat/v7', {
      kind: 'unreachable',
      reason: 'connection refused: nothing listens there',
    })
    expect(found).toMatchObject({ variable: 'SCHEMA_REGISTRY_URL', retriable: true })
    expect(found!.message).toContain('unreachable at http://localhost:8081/apis/ccompat/v7')
    expect(found!.message).toContain('connection refused')
    expect(found!.message).toContain('scripts/stack/stack.sh up kafka registry')
  })

  it('never shows credentials or a query string from the URL', () => {
    for (const observed of [json(404, '{}'), { kind: 'unreachable', reason: 'x' } as const]) {
      const found = diagnoseRegistry(
        'http://alice:s3cret-pw@registry.example:8081/?token=t0ken-xyz',
        observed,
      )
      expect(found!.message).not.toMatch(/s3cret-pw|alice|t0ken-xyz/)
      expect(found!.message).toContain('registry.example:8081')
    }
  })

  it('on the right path but a 404: asks what else listens on the port', () => {
    const found = diagnoseRegistry('http://localhost:8081/apis/ccompat/v7', json(404, '{}'))
    expect(found!.message).toContain('is another service listening on that port?')
  })

  it('takes a failing registry (5xx) for one still starting, and a 401 for missing credentials', () => {
    expect(diagnoseRegistry('http://localhost:8081/apis/ccompat/v7', json(503, '{}'))).toMatchObject({
      retriable: true,
    })
    expect(diagnoseRegistry('http://localhost:8081/apis/ccompat/v7', json(401, '{}'))!.message).toContain(
      'answered 401',
    )
  })
})
