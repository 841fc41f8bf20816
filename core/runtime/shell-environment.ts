// Environment variables written as a shell writes them before a command: `NAME=value NAME=value`.
// The start scripts (package.json, ./run, compose) and the benches that start processes read and
// write this form; one definition of it, both ways.

/** `{ A: '1', B: 'x' }` -> `A=1 B=x`, as a start script prefixes its command. */
export const environmentPrefix = (environment: Readonly<Record<string, string>>): string =>
  Object.entries(environment)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')

/** `A=1 B=x` (space-separated NAME=value pairs; empty: none) -> `{ A: '1', B: 'x' }`. */
export const environmentPairs = (text: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (text ?? '')
      .split(' ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  )
