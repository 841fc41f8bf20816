// Exponential backoff with full jitter: attempt 1 waits up to base, doubling up to max.
export interface BackoffSettings {
  baseMs: number
  maxMs: number
}

export const defaultBackoff: BackoffSettings = { baseMs: 200, maxMs: 30_000 }

export function backoffDelay(
  attempt: number,
  settings: BackoffSettings,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(ceiling / 2 + (random() * ceiling) / 2)
}
