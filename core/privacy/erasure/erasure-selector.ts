import { createHash, createHmac } from 'node:crypto'
import { hashPhone, phoneWithoutFormatting } from '../pii/pii-redaction.ts'

// What `forget` is asked to remove, and how that reads in SQL and in the audit. Pure.
// A caller is found by phone number (from_number or to_number, as stored: raw in any formatting, or
// `hmac:<hex>` under a source's phone=hmac policy, which the command computes with PII_HMAC_KEY), by
// session id, by call SID, or by agent and time range. The audit keeps a keyed hash of the value,
// never the value.
export type ErasureSelector =
  | { kind: 'phone'; value: string }
  | { kind: 'session_id'; value: string }
  | { kind: 'call_sid'; value: string }
  | { kind: 'agent_range'; value: string; from: Date; to: Date }

export class ErasureRequestError extends Error {
  override name = 'ErasureRequestError'
}

export interface SelectorOptions {
  phone?: string
  sessionId?: string
  callSid?: string
  agent?: string
  from?: string
  to?: string
}

function parseTime(text: string | undefined, option: string): Date {
  if (!text)
    throw new ErasureRequestError(`--agent needs --from and --to (ISO 8601 times), ${option} is missing`)
  const time = new Date(text)
  if (Number.isNaN(time.getTime()))
    throw new ErasureRequestError(`${option} is not a date-time: ${JSON.stringify(text)}`)
  return time
}

/** Exactly one selector, its value not empty; an agent with a range whose end is after its start. */
export function selectorFromOptions(options: SelectorOptions): ErasureSelector {
  const given = (['phone', 'sessionId', 'callSid', 'agent'] as const).filter(
    (name) => options[name] !== undefined,
  )
  if (given.length !== 1)
    throw new ErasureRequestError(
      `name exactly one of --phone, --session-id, --call-sid or --agent (with --from and --to); got ${given.length}`,
    )
  const value = options[given[0]!]!.trim()
  if (value === '') throw new ErasureRequestError('the value to forget is empty')
  switch (given[0]) {
    case 'phone':
      if (!/\d/.test(value)) throw new ErasureRequestError('--phone has no digits')
      return { kind: 'phone', value }
    case 'sessionId':
      return { kind: 'session_id', value }
    case 'callSid':
      return { kind: 'call_sid', value }
    default: {
      const from = parseTime(options.from, '--from')
      const to = parseTime(options.to, '--to')
      if (to <= from) throw new ErasureRequestError('--to must be after --from')
      return { kind: 'agent_range', value, from, to }
    }
  }
}

/** Every stored form of a phone number: its digits as written without separators, and its HMAC. */
export function phoneForms(phone: string, hmacKey: string | undefined): { plain: string; hashed?: string } {
  const plain = phoneWithoutFormatting(phone)
  return hmacKey ? { plain, hashed: hashPhone(phone, hmacKey) } : { plain }
}

export interface SqlCondition {
  where: string
  params: Record<string, unknown>
}

/**
 * The condition on a table that has the selector's columns (conversations, campaign_items): which
 * rows belong to the caller. Phone numbers compare without separators, so "+1 (555) 010-0100" and
 * "+15550100100" are one caller.
 */
export function selectorCondition(selector: ErasureSelector, hmacKey: string | undefined): SqlCondition {
  switch (selector.kind) {
    case 'phone': {
      const forms = phoneForms(selector.value, hmacKey)
      const values = forms.hashed ? [forms.plain, forms.hashed] : [forms.plain]
      const bare = (column: string) => `replaceRegexpAll(ifNull(${column}, ''), '[\\\\s().-]', '')`
      return {
        where: `(${bare('from_number')} IN {phones:Array(String)} OR ${bare('to_number')} IN {phones:Array(String)})`,
        params: { phones: values },
      }
    }
    case 'session_id':
      return { where: 'session_id = {value:String}', params: { value: selector.value } }
    case 'call_sid':
      return { where: 'call_sid = {value:String}', params: { value: selector.value } }
    case 'agent_range':
      return {
        where:
          "agent_id = {value:String} AND event_time >= {from:DateTime64(3, 'UTC')} AND event_time < {to:DateTime64(3, 'UTC')}",
        params: {
          value: selector.value,
          from: selector.from.getTime() / 1000,
          to: selector.to.getTime() / 1000,
        },
      }
  }
}

/** The audit's record of the value: keyed, so the audit table cannot be searched for a number. */
export function selectorHash(selector: ErasureSelector, key: string): string {
  const value = selector.kind === 'phone' ? phoneForms(selector.value, undefined).plain : selector.value
  return createHmac('sha256', key).update(`${selector.kind}\u0000${value}`).digest('hex')
}

/** The key of a forgotten conversation, as the worker checks it before each write. */
export function sessionHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex')
}

/** Byte strings whose presence in a Kafka message (key, value) marks it as the caller's. */
export function messageNeedles(
  selector: ErasureSelector,
  sessionIds: readonly string[],
  hmacKey: string | undefined,
): Buffer[] {
  const needles = sessionIds.map((id) => Buffer.from(id))
  if (selector.kind === 'phone') {
    const forms = phoneForms(selector.value, hmacKey)
    needles.push(Buffer.from(selector.value), Buffer.from(forms.plain))
    if (forms.hashed) needles.push(Buffer.from(forms.hashed))
  } else if (selector.kind === 'call_sid') needles.push(Buffer.from(selector.value))
  return needles
}
