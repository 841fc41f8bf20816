// ISO 8601 renderings the platform may use: UTC with Z or a local offset, with no fraction or with
// 3, 6 or 7 fractional digits (.NET's DateTimeOffset writes 7). Digits below the millisecond come
// from the fractional part of the epoch milliseconds, so ordering survives the rendering.
export interface TimestampStyle {
  offsetMinutes: number
  fractionDigits: 0 | 3 | 6 | 7
}

function zone(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z'
  const sign = offsetMinutes > 0 ? '+' : '-'
  const minutes = Math.abs(offsetMinutes)
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

export function formatTimestamp(epochMs: number, style: TimestampStyle): string {
  const whole = Math.floor(epochMs)
  const local = new Date(whole + style.offsetMinutes * 60_000).toISOString() // YYYY-MM-DDTHH:mm:ss.sssZ
  const seconds = local.slice(0, 19)
  if (style.fractionDigits === 0) return `${seconds}${zone(style.offsetMinutes)}`
  const belowMillis = String(Math.floor((epochMs - whole) * 10_000)).padStart(4, '0')
  const fraction = `${local.slice(20, 23)}${belowMillis}`.slice(0, style.fractionDigits)
  return `${seconds}.${fraction}${zone(style.offsetMinutes)}`
}
