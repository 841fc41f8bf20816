// Generator options come from tests, the CLI and benchmarks: a bad one fails with its name.
export function checkCount(name: string, value: number, min = 0): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`)
  return value
}

export function checkRate(name: string, value: number): number {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be between 0 and 1, got ${value}`)
  return value
}

export const round = (value: number, digits: number): number =>
  Math.round(value * 10 ** digits) / 10 ** digits
