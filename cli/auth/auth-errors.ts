import { AuthorizationResponseError, ResponseBodyError, WWWAuthenticateChallengeError } from 'openid-client'

// The errors of login, refresh and logout, worded for the person at the terminal. None of them
// carries a token, a code or a secret.

export class AuthError extends Error {
  override name = 'AuthError'
}

/** The stored session cannot be used any more; the only cure is a new login. */
export class LoginRequiredError extends AuthError {
  override name = 'LoginRequiredError'
  constructor(environment: string, reason: string) {
    super(`${reason}: run \`voice-analytics auth login --env ${environment}\` again`)
  }
}

/** The stored tokens of an environment cannot be read (token-store.ts). */
export class TokenFileError extends Error {
  override name = 'TokenFileError'
}

export function oauthErrorCode(error: unknown): string | undefined {
  if (error instanceof ResponseBodyError || error instanceof AuthorizationResponseError) return error.error
  return undefined
}

/** "HTTP 400, invalid_grant: Token is not active" and the like. */
export function describeIdentityError(error: unknown): string {
  if (error instanceof ResponseBodyError) {
    const description = error.error_description ? `: ${error.error_description}` : ''
    return `HTTP ${error.status}, ${error.error}${description}`
  }
  if (error instanceof AuthorizationResponseError) {
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`
  }
  if (error instanceof WWWAuthenticateChallengeError) {
    const challenge = error.cause[0]?.parameters
    return `HTTP ${error.response.status}${challenge?.error ? `, ${challenge.error}` : ''}${
      challenge?.error_description ? `: ${challenge.error_description}` : ''
    }`
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
    return `${error.message}${cause}`
  }
  return String(error)
}
