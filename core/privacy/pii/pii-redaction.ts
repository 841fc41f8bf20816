import { createHmac } from 'node:crypto'
import { eventShape, type ShapeType } from '../../event/event-schema.ts'
import type { PiiPolicy } from './pii-policy.ts'

// Removes PII from a parsed webhook body as a source's policy says, before it is validated,
// encoded and sent to Kafka. Pure: returns a copy of the parts it changes, never touches its
// input. It works on the JSON as the platform sent it (not the Avro record), so the same
// function redacts conversations, quarantined misfits and other event kinds alike. A value
// of an unexpected type (a number where a string belongs, an object...) under a mode other
// than keep is dropped: it cannot be masked or hashed reliably. Which field falls under which
// knob: pii-policy.ts.

/** A phone number without the separators that only format it, so numbers compare and hash alike. */
export function phoneWithoutFormatting(phone: string): string {
  return phone.replace(/[\s().-]/g, '')
}

/** Keyed HMAC-SHA256 of a phone number: equal numbers give equal values, the key keeps them unguessable. */
export function hashPhone(phone: string, key: string): string {
  return `hmac:${createHmac('sha256', key).update(phoneWithoutFormatting(phone)).digest('hex')}`
}

const emailPattern = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g
/** 13 to 19 digits, optionally grouped by spaces or dashes: a payment card's shape. */
const cardPattern = /\d(?:[ -]?\d){12,18}/g
const digitPattern = /\d/g

/** Masks e-mail addresses, card-like numbers and then every other digit of a transcript line. */
export function maskText(text: string): string {
  return text.replace(emailPattern, '[email]').replace(cardPattern, '[card]').replace(digitPattern, '#')
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A copy of `target` with `field` transformed, or removed when transform gives undefined. */
function rewrite(
  target: Record<string, unknown>,
  field: string,
  transform: (value: string) => string | undefined,
): void {
  const value = target[field]
  if (value === undefined || value === null) return
  const next = typeof value === 'string' ? transform(value) : undefined
  if (next === undefined) delete target[field]
  else target[field] = next
}

/**
 * A copy of `value` without the fields the event schema does not know, on every object it
 * describes (the envelope, data, history items, their metrics, test_eval_result, room_metadata).
 * A value of another shape than the schema's is left as it is: validation sends it to quarantine.
 */
export function withoutUnknownFields(value: unknown, shape: ShapeType = eventShape): unknown {
  switch (shape.kind) {
    case 'record': {
      if (!isObject(value)) return value
      const known: Record<string, unknown> = {}
      for (const field of shape.fields)
        if (Object.hasOwn(value, field.name))
          known[field.name] = withoutUnknownFields(value[field.name], field.type)
      return known
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => withoutUnknownFields(item, shape.items)) : value
    case 'map':
      return isObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([key, item]) => [key, withoutUnknownFields(item, shape.values)]),
          )
        : value
    default:
      return value
  }
}

const freeText: readonly string[] = ['content', 'instructions']

function redactItem(item: unknown, policy: PiiPolicy): unknown {
  if (!isObject(item)) return item
  const copy = { ...item }
  for (const field of freeText)
    if (policy.content === 'drop') delete copy[field]
    else if (policy.content === 'mask') rewrite(copy, field, maskText)
  if (policy.tools === 'drop') {
    delete copy.tool_arguments_json
    delete copy.tool_output
  }
  return copy
}

/** The body with the policy applied; call it only for a policy that removes something. */
export function redactWebhookBody(body: unknown, policy: PiiPolicy, hmacKey: string | undefined): unknown {
  // Unknown fields go first, anywhere: other event kinds keep only what the conversation schema names.
  const known = policy.unknown_fields === 'drop' ? withoutUnknownFields(body) : body
  if (!isObject(known) || !isObject(known.data)) return known
  const data = { ...known.data }
  if (policy.phone === 'drop') {
    delete data.from_number
    delete data.to_number
  } else if (policy.phone === 'hmac') {
    if (!hmacKey) throw new Error('PII_HMAC_KEY is required to hash phone numbers')
    const hash = (phone: string) => hashPhone(phone, hmacKey)
    rewrite(data, 'from_number', hash)
    rewrite(data, 'to_number', hash)
  }
  if (policy.audio_url === 'drop') delete data.audio_url
  if (policy.errors === 'mask') {
    rewrite(data, 'error_message', maskText)
    if (isObject(data.room_metadata)) {
      data.room_metadata = { ...data.room_metadata }
      rewrite(data.room_metadata as Record<string, unknown>, 'error', maskText)
    }
  }
  if (policy.url_parameters === 'drop') delete data.url_parameters
  else if (policy.url_parameters === 'mask' && data.url_parameters != null) {
    // Keys name what a value is (phone, email): they stay; every value is masked.
    if (isObject(data.url_parameters))
      data.url_parameters = Object.fromEntries(
        Object.entries(data.url_parameters).flatMap(([key, value]) =>
          typeof value === 'string' ? [[key, maskText(value)]] : [],
        ),
      )
    else delete data.url_parameters
  }
  if (policy.test_reasons !== 'keep' && data.test_eval_result != null) {
    if (isObject(data.test_eval_result)) {
      const result = { ...data.test_eval_result }
      if (policy.test_reasons === 'drop' || !Array.isArray(result.reasons)) delete result.reasons
      else
        result.reasons = result.reasons.flatMap((reason) =>
          typeof reason === 'string' ? [maskText(reason)] : [],
        )
      data.test_eval_result = result
    }
    // Not an object: a misfit bound for quarantine, whose text cannot be told from its reasons.
    else delete data.test_eval_result
  }
  if ((policy.content !== 'keep' || policy.tools !== 'keep') && data.history !== undefined) {
    if (Array.isArray(data.history)) data.history = data.history.map((item) => redactItem(item, policy))
    // A history that is not an array is a misfit bound for quarantine: nothing in it can be trusted.
    else if (data.history !== null) delete data.history
  }
  return { ...known, data }
}
