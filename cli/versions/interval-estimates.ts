import { createRandom } from '../../generator/random.ts'
import { percentileOfSorted } from '../../services/worker/transform/latency-percentiles.ts'

// A figure of a group of conversations with its 95 % confidence interval, so that before and after
// a version change are never compared as two bare numbers of small samples (#32). The conversation
// is the unit throughout: the turns of one call share its line, its caller and the load of the
// moment, so intervals over turns, as if each were independent, would be too narrow. Three methods,
// each the one that needs no assumption about the shape of the data:
// - a proportion (failed rooms, tests passed, calls with dead air): the Wilson score interval. Unlike
//   the plain normal interval it stays inside [0, 1] and keeps close to 95 % with few calls or rates
//   near 0, which is where failed-room rates live.
// - a quantile (the median call's latency): the distribution-free interval between two order
//   statistics, whose ranks come from the binomial distribution (the number of values below the true
//   quantile is Binomial(n, q)). It holds at least 95 % for any continuous distribution; with too few
//   calls one end cannot be had (null), rather than a made-up bound.
// - a mean or a ratio of sums (cost per call, barge-ins per agent turn): the percentile bootstrap
//   over calls, seeded, so the same data give the same interval. These figures have no exact
//   distribution-free interval, and cost is skewed, which the bootstrap follows where a t interval
//   would not. With many calls (more than normalAbove) the sampling distribution of a mean or
//   ratio is normal to well within the bootstrap's own noise (central limit theorem), and the
//   delta-method interval is used: the same coverage in one pass instead of a thousand (at 1M
//   conversations a month, one busy agent's 7-day windows hold 100,000 calls: 1 s of resampling).
// Coverage of each is checked by simulation in the unit test.

export interface Estimate {
  value: number | null
  /** The interval's ends; null: none (no data, or too few values for that end). */
  low: number | null
  high: number | null
  /** The conversations it is computed from. */
  n: number
}

export const confidence = 0.95
/** The standard normal quantile of 1 - (1 - confidence) / 2. */
const z = 1.959963984540054

/** Wilson score interval of `successes` out of `n`. */
export function proportionEstimate(successes: number, n: number): Estimate {
  if (n === 0) return { value: null, low: null, high: null, n }
  const p = successes / n
  const z2 = z * z
  const denominator = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denominator
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), n }
}

/**
 * The q-quantile of `values` (linear interpolation, as the conversation columns' percentiles) and the
 * order-statistic interval [x(l), x(u)] with P(l <= B < u) >= 95 %, B ~ Binomial(n, q), each end
 * taking at most half of the 5 %.
 */
export function quantileEstimate(values: readonly number[], q: number): Estimate {
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  if (n === 0) return { value: null, low: null, high: null, n }
  const tail = (1 - confidence) / 2
  const cdf = binomialCdf(n, q)
  // l: the largest rank with P(B < l) <= tail; u: the smallest with P(B >= u) <= tail (1-based ranks).
  let l = 0
  while (l + 1 <= n && cdf[l]! <= tail) l++
  let u = n + 1
  while (u - 1 >= 1 && 1 - cdf[u - 2]! <= tail) u--
  return {
    value: percentileOfSorted(sorted, q),
    low: l >= 1 ? sorted[l - 1]! : null,
    high: u <= n ? sorted[u - 1]! : null,
    n,
  }
}

/** P(B <= k) for k = 0..n, B ~ Binomial(n, p); in logs, as the terms underflow for large n. */
function binomialCdf(n: number, p: number): number[] {
  const cdf = new Array<number>(n + 1)
  const logOdds = Math.log(p) - Math.log1p(-p)
  let logTerm = n * Math.log1p(-p)
  let sum = 0
  for (let k = 0; k <= n; k++) {
    sum += Math.exp(logTerm)
    cdf[k] = Math.min(1, sum)
    logTerm += Math.log((n - k) / (k + 1)) + logOdds
  }
  return cdf
}

export interface BootstrapSettings {
  resamples: number
  seed: number
  /** More calls than this: the delta-method (normal) interval instead of the bootstrap. */
  normalAbove: number
}
export const defaultBootstrap: BootstrapSettings = { resamples: 1000, seed: 32, normalAbove: 5000 }

/**
 * The delta-method interval of sum(N) / sum(D): its standard error is the standard deviation of the
 * calls' residuals N − R·D over sqrt(n) and the mean denominator.
 */
function normalRatioInterval(
  numerators: readonly number[],
  denominators: readonly number[],
  ratio: number,
): { low: number; high: number } {
  const n = numerators.length
  let residualSquares = 0
  let denominatorSum = 0
  for (let index = 0; index < n; index++) {
    const residual = numerators[index]! - ratio * denominators[index]!
    residualSquares += residual * residual
    denominatorSum += denominators[index]!
  }
  const meanDenominator = denominatorSum / n
  const standardError = Math.sqrt(residualSquares / (n - 1) / n) / meanDenominator
  return { low: ratio - z * standardError, high: ratio + z * standardError }
}

/**
 * sum(numerators) / sum(denominators) over the calls (with denominators of 1: the mean) and its
 * percentile-bootstrap interval, the calls resampled with replacement (the delta-method interval
 * above normalAbove calls). No value when the denominators sum to 0.
 */
export function ratioEstimate(
  numerators: readonly number[],
  denominators: readonly number[],
  settings: BootstrapSettings = defaultBootstrap,
): Estimate {
  const n = numerators.length
  const ratio = (sumN: number, sumD: number) => (sumD === 0 ? null : sumN / sumD)
  const value = ratio(sum(numerators), sum(denominators))
  if (n === 0 || value === null) return { value, low: null, high: null, n }
  if (n > settings.normalAbove) return { value, ...normalRatioInterval(numerators, denominators, value), n }
  const random = createRandom(settings.seed)
  const ratios: number[] = []
  for (let resample = 0; resample < settings.resamples; resample++) {
    let sumN = 0
    let sumD = 0
    for (let draw = 0; draw < n; draw++) {
      const index = Math.floor(random.next() * n)
      sumN += numerators[index]!
      sumD += denominators[index]!
    }
    const r = ratio(sumN, sumD)
    if (r !== null) ratios.push(r)
  }
  ratios.sort((a, b) => a - b)
  const tail = (1 - confidence) / 2
  return { value, low: percentileOfSorted(ratios, tail), high: percentileOfSorted(ratios, 1 - tail), n }
}

/** The mean of `values` with its bootstrap interval. */
export const meanEstimate = (values: readonly number[], settings: BootstrapSettings = defaultBootstrap) =>
  ratioEstimate(values, new Array<number>(values.length).fill(1), settings)

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0)

/**
 * How two estimates compare: 'higher' or 'lower' only when their intervals do not overlap (a
 * conservative test: two 95 % intervals apart mean a difference well beyond 5 % chance); 'unclear'
 * otherwise, also when an interval end is missing.
 */
export function comparison(before: Estimate, after: Estimate): 'higher' | 'lower' | 'unclear' {
  if (before.low === null || before.high === null || after.low === null || after.high === null)
    return 'unclear'
  if (after.low > before.high) return 'higher'
  if (after.high < before.low) return 'lower'
  return 'unclear'
}
