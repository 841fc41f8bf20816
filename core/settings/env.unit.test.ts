import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './env.ts'

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({})
    expect(config.KAFKA_BROKERS).toBe('localhost:9092')
    expect(config.SCHEMA_REGISTRY_URL).toBe('http://localhost:8081/apis/ccompat/v7')
    expect(config.CLICKHOUSE_URL).toBeUndefined()
    expect(config.CLICKHOUSE_DATA_DIR).toBe('./data/clickhouse')
    expect(config.CLICKHOUSE_DATABASE).toBe('voice_analytics')
    expect(config.INGRESS_PORT).toBe(8080)
    expect(config.WORKER_METRICS_PORT).toBe(9464)
  })
  it('treats empty strings as unset', () => {
    expect(loadConfig({ CLICKHOUSE_URL: '', INGRESS_PORT: '' }).INGRESS_PORT).toBe(8080)
  })
  it.each([
    ['INGRESS_PORT', '80a'],
    ['INGRESS_PORT', '70000'],
    ['WORKER_METRICS_PORT', '-1'],
    ['SCHEMA_REGISTRY_URL', 'not a url'],
    ['CLICKHOUSE_URL', 'localhost:8123'],
    ['CLICKHOUSE_DATABASE', 'drop table;'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'xml'],
    ['CLICKHOUSE_CLUSTER', "va'; drop"],
  ])('names %s when it is %j', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [variable]: value })).toThrow(
      new RegExp(`^invalid configuration: ${variable}:`),
    )
  })
  it('takes a cluster name with a server to reach it, and refuses one for the embedded engine', () => {
    expect(loadConfig({}).CLICKHOUSE_CLUSTER).toBeUndefined()
    expect(
      loadConfig({ CLICKHOUSE_CLUSTER: 'va_cluster', CLICKHOUSE_URL: 'http://ch1:8123' }).CLICKHOUSE_CLUSTER,
    ).toBe('va_cluster')
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'va_cluster' })).toThrow(
      /^invalid configuration: CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/,
    )
  })
})
