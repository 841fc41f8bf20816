// Waits for a condition instead of a fixed time: polls until it holds, or fails naming it and the
// last value seen.
export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 120_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: T = await probe()
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(last)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
    last = await probe()
  }
  return last
}
