// Plays the browser's part in the login, over plain HTTP: follows the authorization URL to
// Keycloak's real login page, submits its form with the test user's password (keeping Keycloak's
// cookies), and delivers the resulting redirect to the CLI's loopback listener.

export type HeadlessLoginOptions = {
  username: string
  password: string
  /** Replace `state` in the redirect to the CLI, as a forged callback would. */
  tamperState?: boolean
}

export type HeadlessLoginResult = {
  /** The `lang` of Keycloak's login page (kc_locale). */
  loginPageLang?: string
  callbackStatus: number
  callbackBody: string
}

export class IdentityServerRefusal extends Error {
  override name = 'IdentityServerRefusal'
}

class CookieJar {
  #cookies = new Map<string, string>()
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';')
      const name = pair.slice(0, pair.indexOf('=')).trim()
      const value = pair.slice(pair.indexOf('=') + 1).trim()
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute))
      if (expired || value === '') this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
  }
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

const decodeEntities = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))

const pageMessage = (html: string) =>
  /<(?:p|span|div)[^>]*(?:kc-error-message|alert-error|input-error|kc-feedback-text)[^>]*>([\s\S]*?)<\/(?:p|span|div)>/i
    .exec(html)?.[1]
    ?.replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim()

export async function completeLoginInBrowser(
  authorizationUrl: string,
  options: HeadlessLoginOptions,
): Promise<HeadlessLoginResult> {
  const jar = new CookieJar()
  const request = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    })
    jar.store(response)
    return response
  }

  let response = await request(authorizationUrl)
  for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 10; hops++) {
    const next = new URL(response.headers.get('location')!, authorizationUrl).href
    response = await request(next)
  }
  const loginPage = await response.text()
  if (response.status !== 200) {
    throw new IdentityServerRefusal(`HTTP ${response.status}: ${pageMessage(loginPage) ?? 'no message'}`)
  }
  const form = /<form[^>]*id="kc-form-login"[^>]*>/i.exec(loginPage)?.[0]
  const action = form && /action="([^"]+)"/i.exec(form)?.[1]
  if (!action) throw new Error('no login form (kc-form-login) on the page Keycloak answered with')
  const loginPageLang = /<html[^>]*\blang="([^"]+)"/i.exec(loginPage)?.[1]

  const submitted = await request(decodeEntities(action), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: options.username, password: options.password, credentialId: '' }),
  })
  if (submitted.status !== 302 && submitted.status !== 303) {
    const html = await submitted.text()
    throw new Error(
      `the login form was not accepted (HTTP ${submitted.status}): ${pageMessage(html) ?? 'no message'}`,
    )
  }
  const callback = new URL(submitted.headers.get('location')!, action)
  if (options.tamperState) callback.searchParams.set('state', `${callback.searchParams.get('state')}-forged`)
  const delivered = await fetch(callback, { redirect: 'manual' })
  return {
    ...(loginPageLang ? { loginPageLang } : {}),
    callbackStatus: delivered.status,
    callbackBody: await delivered.text(),
  }
}
