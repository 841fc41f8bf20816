import { describeNetworkFailure } from './diagnosis.ts'

// One GET with a deadline, reduced to what a diagnosis needs: the status, the content type and the
// start of the body, or why nothing answered. Never throws.
export type HttpObservation =
  | { kind: 'answered'; status: number; contentType: string; bodyStart: string }
  | { kind: 'unreachable'; reason: string }

export async function probeHttp(
  url: string,
  init: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpObservation> {
  // fetch refuses a URL with credentials (and would echo it in its error): they go in a header.
  const target = new URL(url)
  const headers: Record<string, string> = { ...init.headers }
  if (target.username || target.password) {
    const user = decodeURIComponent(target.username)
    const password = decodeURIComponent(target.password)
    headers.authorization ??= `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    target.username = ''
    target.password = ''
  }
  try {
    const response = await fetch(target, {
      headers,
      redirect: 'follow',
      signal: AbortSignal.timeout(init.timeoutMs ?? 3_000),
    })
    const body = await response.text()
    return {
      kind: 'answered',
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      bodyStart: body.slice(0, 300),
    }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    const code = (error as Error).name === 'TimeoutError' ? 'TIMEOUT' : cause?.code
    return {
      kind: 'unreachable',
      reason: describeNetworkFailure(code, cause?.message ?? (error as Error).message),
    }
  }
}
