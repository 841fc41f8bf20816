import { describe, expect, it } from 'vitest'
import {
  errorReason,
  readiness,
  requestWithCredentials,
  urlHost,
  withoutCredentials,
} from './readiness-checks.ts'

describe('readiness checks never echo a credential', () => {
  it('names a URL by its host only', () => {
    expect(urlHost('http://user:secretpw@registry.internal:8081/apis/ccompat/v7?key=abc')).toBe(
      'registry.internal:8081',
    )
    expect(urlHost('not a url')).toBe('an unparsable URL')
  })
  it('strips user:password@ from every URL in a text', () => {
    expect(
      withoutCredentials(
        'Request cannot be constructed from a URL that includes credentials: http://user:secretpw@h:1/subjects and HTTPS://a@b/',
      ),
    ).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://h:1/subjects and HTTPS://b/',
    )
  })
  it('gives an error its code when it has one, else its message without credentials', () => {
    expect(
      errorReason(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
    ).toBe('ECONNREFUSED')
    expect(errorReason(new Error('bad http://u:p@h/x'))).toBe('bad http://h/x')
  })
  it('moves URL credentials into a Basic header', () => {
    expect(requestWithCredentials('http://us%40er:p%3Ass@h:1/apis')).toEqual({
      url: 'http://h:1/apis',
      headers: { authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}` },
    })
    expect(requestWithCredentials('http://h:1/apis')).toEqual({ url: 'http://h:1/apis', headers: {} })
  })
})

describe('readiness', () => {
  const up = { ok: true as const }
  const down = { ok: false as const, reason: 'unreachable (ECONNREFUSED)' }
  it('is ready with Kafka and a registered schema, whether or not the registry answers now', () => {
    expect(
      readiness({ kafka: up, registry: down, registryHost: 'h:1', schemaId: 7, spanSchemaId: 8 }),
    ).toEqual({
      ready: true,
      checks: {
        kafka: 'ok',
        registry: 'h:1: unreachable (ECONNREFUSED) (schema cached: not needed)',
        schema: 'registered (id 7)',
        span_schema: 'registered (id 8)',
      },
    })
    expect(
      readiness({ kafka: up, registry: up, registryHost: 'h:1', schemaId: 7, spanSchemaId: 8 }).ready,
    ).toBe(true)
  })
  it('is not ready before the schema is registered, or without Kafka', () => {
    expect(
      readiness({
        kafka: up,
        registry: up,
        registryHost: 'h:1',
        schemaId: undefined,
        spanSchemaId: undefined,
      }),
    ).toEqual({
      ready: false,
      checks: {
        kafka: 'ok',
        registry: 'ok',
        schema: 'not registered yet',
        span_schema: 'not registered yet',
      },
    })
    // The span schema too: POST /v1/traces needs it.
    expect(
      readiness({ kafka: up, registry: down, registryHost: 'h:1', schemaId: 7, spanSchemaId: undefined }),
    ).toEqual({
      ready: false,
      checks: {
        kafka: 'ok',
        registry: 'h:1: unreachable (ECONNREFUSED)',
        schema: 'registered (id 7)',
        span_schema: 'not registered yet',
      },
    })
    expect(
      readiness({
        kafka: { ok: false, reason: 'x http://u:p@k/' },
        registry: up,
        registryHost: 'h',
        schemaId: 1,
        spanSchemaId: 2,
      }),
    ).toEqual({
      ready: false,
      checks: {
        kafka: 'unreachable: x http://k/',
        registry: 'ok',
        schema: 'registered (id 1)',
        span_schema: 'registered (id 2)',
      },
    })
  })
})
