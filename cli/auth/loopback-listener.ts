import { createServer } from 'node:http'
import type { LoopbackRedirect } from '../config/loopback.ts'
import { AuthError } from './auth-errors.ts'

// The login callback (RFC 8252 §7.3): an HTTP listener on the exact registered redirect URI that
// takes one authorization response, checks its `state` against the one this login sent, and
// hands back the callback URL for the code exchange.

export type CallbackListener = { callback: Promise<URL>; close(): Promise<void> }

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body><h1>${title}</h1><p>${text}</p></body></html>`

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

export async function startCallbackListener(
  redirect: LoopbackRedirect,
  expectedState: string,
  timeoutMs: number,
): Promise<CallbackListener> {
  let settle: { resolve(url: URL): void; reject(error: Error): void } | undefined
  const callback = new Promise<URL>((resolve, reject) => {
    settle = { resolve, reject }
  })
  callback.catch(() => {}) // the caller awaits it later; a rejection before then is not "unhandled"
  let done = false
  const finish = (outcome: URL | Error) => {
    if (done) return
    done = true
    if (outcome instanceof URL) settle!.resolve(outcome)
    else settle!.reject(outcome)
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirect.uri)
    const reply = (status: number, title: string, text: string) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      response.end(page(title, escapeHtml(text)))
    }
    if (request.method !== 'GET' || url.pathname !== redirect.path) {
      reply(404, 'Not found', 'This address only receives the voice-analytics login callback.')
      return
    }
    if (done) {
      reply(409, 'Already handled', 'This login has already received its answer; you can close this window.')
      return
    }
    const state = url.searchParams.get('state')
    if (state !== expectedState) {
      reply(
        400,
        'Login aborted',
        'The answer did not belong to this login (state mismatch). Run the login again.',
      )
      finish(
        new AuthError(
          'login aborted: the callback\'s "state" does not match the one this login sent (possible CSRF or a stale ' +
            'browser tab); run `voice-analytics auth login` again',
        ),
      )
      return
    }
    const error = url.searchParams.get('error')
    if (error) {
      const description = url.searchParams.get('error_description')
      reply(
        400,
        'Login failed',
        `The identity server answered: ${error}${description ? `: ${description}` : ''}`,
      )
      finish(
        new AuthError(
          `the identity server refused the login: ${error}${description ? `: ${description}` : ''}`,
        ),
      )
      return
    }
    if (!url.searchParams.get('code')) {
      reply(400, 'Login failed', 'The callback carried no authorization code.')
      finish(new AuthError('the login callback carried no authorization code'))
      return
    }
    reply(200, 'Logged in', 'voice-analytics is logged in; you can close this window.')
    finish(url)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new AuthError(
              `port ${redirect.port} of the redirect URI ${redirect.uri} is in use by another program: ` +
                'stop it, or register another loopback redirect URI for the client and configure it',
            )
          : new AuthError(`cannot listen on ${redirect.uri}: ${error.message}`),
      )
    })
    server.listen(redirect.port, redirect.host, () => resolve())
  })

  const timer = setTimeout(
    () =>
      finish(
        new AuthError(
          `no login callback within ${Math.round(timeoutMs / 1000)} s: run \`voice-analytics auth login\` again`,
        ),
      ),
    timeoutMs,
  )
  return {
    callback,
    async close() {
      clearTimeout(timer)
      finish(new AuthError('login cancelled'))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
