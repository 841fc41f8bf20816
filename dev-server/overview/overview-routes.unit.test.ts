import { describe, expect, it } from 'vitest'
import { overviewRefusal, overviewRoute } from './overview-routes.ts'

const at = (path: string) => new URL(path, 'http://127.0.0.1:8124')
const port = 8124

describe('overviewRoute', () => {
  it('serves the page at GET /, but leaves SQL (POST /, GET /?query=) to the token-guarded endpoint', () => {
    expect(overviewRoute('GET', at('/'))).toEqual({ kind: 'page' })
    expect(overviewRoute('HEAD', at('/'))).toEqual({ kind: 'page' })
    expect(overviewRoute('POST', at('/'))).toBeUndefined()
    expect(overviewRoute('GET', at('/?query=SELECT%201'))).toBeUndefined()
    expect(overviewRoute('GET', at('/ping'))).toBeUndefined()
  })
  it('names only fixed queries and assets; anything else under /overview is not found', () => {
    expect(overviewRoute('GET', at('/overview/data/e2e-latency'))).toEqual({
      kind: 'data',
      name: 'e2e-latency',
    })
    expect(overviewRoute('GET', at('/overview/uplot.js'))).toEqual({ kind: 'asset', asset: 'uplot.js' })
    expect(overviewRoute('GET', at('/overview/alerts'))).toEqual({ kind: 'alerts' })
    expect(overviewRoute('GET', at('/overview/overview-alerts.js'))).toEqual({
      kind: 'asset',
      asset: 'overview-alerts.js',
    })
    expect(overviewRoute('POST', at('/overview/alerts'))).toEqual({ kind: 'method-not-allowed' })
    for (const path of [
      '/overview/data/system.tables',
      '/overview/data/toString',
      '/overview/data/e2e-latency/x',
      '/overview/..%2fpackage.json',
      '/overview/uplot/dist/uPlot.esm.js',
      '/overview',
    ])
      expect(overviewRoute('GET', at(path)), path).toEqual({ kind: 'not-found' })
  })
  it('is read with GET only', () => {
    expect(overviewRoute('POST', at('/overview/data/e2e-latency'))).toEqual({ kind: 'method-not-allowed' })
    expect(overviewRoute('DELETE', at('/overview/overview.js'))).toEqual({ kind: 'method-not-allowed' })
  })
})

describe('overviewRefusal', () => {
  it('needs no token from the browser on this machine (typed URL, or the page itself)', () => {
    expect(
      overviewRefusal({ host: '127.0.0.1:8124', origin: undefined, secFetchSite: 'none' }, port),
    ).toBeUndefined()
    expect(
      overviewRefusal(
        { host: 'localhost:8124', origin: 'http://localhost:8124', secFetchSite: 'same-origin' },
        port,
      ),
    ).toBeUndefined()
    expect(
      overviewRefusal({ host: '[::1]:8124', origin: undefined, secFetchSite: undefined }, port),
    ).toBeUndefined()
  })
  it('keeps the Host guard (DNS rebinding) and the cross-site guard', () => {
    expect(
      overviewRefusal({ host: 'attacker.example:8124', origin: undefined, secFetchSite: 'none' }, port)
        ?.status,
    ).toBe(421)
    expect(
      overviewRefusal({ host: undefined, origin: undefined, secFetchSite: undefined }, port)?.status,
    ).toBe(421)
    expect(
      overviewRefusal(
        { host: '127.0.0.1:8124', origin: 'https://attacker.example', secFetchSite: 'cross-site' },
        port,
      )?.status,
    ).toBe(403)
    expect(
      overviewRefusal(
        { host: '127.0.0.1:8124', origin: 'http://127.0.0.1:1', secFetchSite: 'same-site' },
        port,
      )?.status,
    ).toBe(403)
  })
})
