import { describe, expect, it } from 'vitest'
import { bearerTokenMatches, crossSite, guardRefusal, hostAllowed } from './sql-endpoint-guard.ts'

const port = 8124
const token = 'tok-0123456789abcdef'
const fine = {
  host: '127.0.0.1:8124',
  origin: undefined,
  secFetchSite: undefined,
  authorization: `Bearer ${token}`,
}

describe('hostAllowed', () => {
  it.each(['127.0.0.1:8124', 'localhost:8124', 'LOCALHOST:8124', '[::1]:8124'])('takes %s', (host) => {
    expect(hostAllowed(host, port)).toBe(true)
  })
  it.each([
    undefined,
    '',
    '127.0.0.1',
    '127.0.0.1:8125',
    'localhost',
    'attacker.example:8124', // DNS rebinding: the attacker's name resolved to 127.0.0.1
    '127.0.0.1.nip.io:8124',
    '0.0.0.0:8124',
  ])('refuses %s', (host) => {
    expect(hostAllowed(host, port)).toBe(false)
  })
})

describe('crossSite', () => {
  it('lets a program (no Origin, no Sec-Fetch-Site) and the same origin through', () => {
    expect(crossSite({ origin: undefined, secFetchSite: undefined }, port)).toBe(false)
    expect(crossSite({ origin: 'http://127.0.0.1:8124', secFetchSite: 'same-origin' }, port)).toBe(false)
    expect(crossSite({ origin: undefined, secFetchSite: 'none' }, port)).toBe(false)
  })
  it.each([
    { origin: undefined, secFetchSite: 'cross-site' }, // <img src="http://127.0.0.1:8124/?query=...">
    { origin: undefined, secFetchSite: 'same-site' },
    { origin: 'https://attacker.example', secFetchSite: undefined }, // a form POST, older browser
    { origin: 'null', secFetchSite: undefined }, // sandboxed iframe, file://
    { origin: 'http://127.0.0.1:9999', secFetchSite: undefined }, // another local port is another site
  ])('refuses %o', (request) => {
    expect(crossSite(request, port)).toBe(true)
  })
})

describe('bearerTokenMatches', () => {
  it('takes the token in a Bearer header only', () => {
    expect(bearerTokenMatches(`Bearer ${token}`, token)).toBe(true)
    expect(bearerTokenMatches(`bearer ${token}`, token)).toBe(true)
    expect(bearerTokenMatches(undefined, token)).toBe(false)
    expect(bearerTokenMatches('', token)).toBe(false)
    expect(bearerTokenMatches(token, token)).toBe(false)
    expect(bearerTokenMatches(`Bearer ${token}x`, token)).toBe(false)
    expect(bearerTokenMatches(`Basic ${token}`, token)).toBe(false)
    expect(bearerTokenMatches('Bearer ', token)).toBe(false)
  })
})

describe('guardRefusal', () => {
  it('answers a local program with the token', () => {
    expect(guardRefusal(fine, port, token)).toBeUndefined()
  })
  it('refuses a foreign Host with 421 before anything else, even with the token', () => {
    expect(guardRefusal({ ...fine, host: 'rebind.attacker.example:8124' }, port, token)?.status).toBe(421)
  })
  it('refuses a cross-site request with 403, even with the token', () => {
    expect(guardRefusal({ ...fine, secFetchSite: 'cross-site' }, port, token)?.status).toBe(403)
  })
  it('refuses a missing or wrong token with 401, and never echoes a token', () => {
    const missing = guardRefusal({ ...fine, authorization: undefined }, port, token)
    const wrong = guardRefusal({ ...fine, authorization: 'Bearer guessed' }, port, token)
    expect(missing?.status).toBe(401)
    expect(wrong?.status).toBe(401)
    expect(wrong?.message).not.toContain('guessed')
    expect(wrong?.message).not.toContain(token)
  })
})
