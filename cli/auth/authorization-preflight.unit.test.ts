import { describe, expect, it } from 'vitest'
import { errorPageMessage } from './authorization-preflight.ts'

describe('errorPageMessage', () => {
  it("reads the message of Keycloak's error page", () => {
    const html = `<html><head><title>Sign in to realm</title></head><body>
      <div id="kc-error-message">
            <p class="instruction">Invalid parameter: redirect_uri</p>
      </div></body></html>`
    expect(errorPageMessage(html)).toBe('Invalid parameter: redirect_uri')
  })

  it('falls back to the title, then to nothing', () => {
    expect(errorPageMessage('<title>Client &amp; realm not found</title>')).toBe('Client & realm not found')
    expect(errorPageMessage('plain text')).toBeUndefined()
  })
})
