import type { OtlpAttribute } from './otlp-spans.ts'

// Reading typed OTLP attribute values (otlp-spans.ts). Numbers come from int_value or double_value
// alike: the JS SDK sends an integral double (0.0) as an int. A value of another type than asked
// for reads as absent, never as a coerced value.
export type AttributeMap = ReadonlyMap<string, OtlpAttribute>

export function attributeMap(attributes: readonly OtlpAttribute[]): Map<string, OtlpAttribute> {
  const map = new Map<string, OtlpAttribute>()
  for (const attribute of attributes) if (!map.has(attribute.key)) map.set(attribute.key, attribute)
  return map
}

export function stringAttribute(map: AttributeMap, key: string | null | undefined): string | null {
  if (!key) return null
  return map.get(key)?.string_value ?? null
}

export function numberAttribute(map: AttributeMap, key: string | null | undefined): number | null {
  if (!key) return null
  const attribute = map.get(key)
  if (!attribute) return null
  const value = attribute.double_value ?? attribute.int_value
  if (typeof value === 'number' && Number.isFinite(value)) return value
  // Some SDKs send numbers as text (an attribute set from a formatted value).
  if (attribute.string_value !== null && /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(attribute.string_value))
    return Number(attribute.string_value)
  return null
}

export function booleanAttribute(map: AttributeMap, key: string | null | undefined): boolean | null {
  if (!key) return null
  const attribute = map.get(key)
  if (!attribute) return null
  if (attribute.bool_value !== null) return attribute.bool_value
  // LiveKit writes some flags as the strings "true"/"false" (lk.is_interruption).
  if (attribute.string_value === 'true') return true
  if (attribute.string_value === 'false') return false
  return null
}

/** An array of strings (OTLP JSON of an arrayValue in json_value), e.g. lk.function_tools. */
export function stringListAttribute(map: AttributeMap, key: string | null | undefined): string[] | null {
  if (!key) return null
  const json = map.get(key)?.json_value
  if (!json) return null
  try {
    // The ArrayValue's encoding, or the AnyValue's around it: both read.
    type ArrayValue = { values?: { stringValue?: string }[] }
    const parsed = JSON.parse(json) as ArrayValue & { arrayValue?: ArrayValue }
    return (parsed.arrayValue?.values ?? parsed.values ?? []).flatMap((value) =>
      typeof value.stringValue === 'string' ? [value.stringValue] : [],
    )
  } catch {
    return null
  }
}

type AnyValueJson = {
  stringValue?: string
  boolValue?: boolean
  intValue?: string | number
  doubleValue?: number | string
  arrayValue?: { values?: AnyValueJson[] }
  kvlistValue?: { values?: { key?: string; value?: AnyValueJson }[] }
  bytesValue?: string
}
type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain }

/** An OTLP JSON AnyValue as a plain JSON value: arrays as arrays, key-value lists as objects. */
function plainValue(any: AnyValueJson | undefined): Plain {
  if (!any) return null
  if (any.stringValue !== undefined) return any.stringValue
  if (any.boolValue !== undefined) return any.boolValue
  if (any.intValue !== undefined) {
    // Beyond JavaScript's exact integers the decimal text stays as it came.
    const int = Number(any.intValue)
    return Number.isSafeInteger(int) ? int : String(any.intValue)
  }
  if (any.doubleValue !== undefined)
    return typeof any.doubleValue === 'number' ? any.doubleValue : String(any.doubleValue)
  if (any.arrayValue !== undefined) return (any.arrayValue.values ?? []).map(plainValue)
  if (any.kvlistValue !== undefined)
    return Object.fromEntries(
      (any.kvlistValue.values ?? []).map((entry) => [entry.key ?? '', plainValue(entry.value)]),
    )
  if (any.bytesValue !== undefined) return any.bytesValue // base64, as OTLP JSON writes bytes
  return null
}

/**
 * An attribute's value as plain JSON, whatever its type: the typed value, or json_value (the
 * receiver's OTLP JSON of an array, key-value list, bytes or an integer beyond 2^53) decoded, e.g.
 * `{"arrayValue":{"values":[{"stringValue":"a"}]}}` as `["a"]`. For attributes copied as they are
 * (a Pipecat conversation's own attributes into extra_fields_json).
 */
export function plainAttributeValue(attribute: OtlpAttribute): Plain {
  if (attribute.string_value !== null) return attribute.string_value
  if (attribute.double_value !== null) return attribute.double_value
  if (attribute.int_value !== null) return attribute.int_value
  if (attribute.bool_value !== null) return attribute.bool_value
  if (attribute.json_value === null) return null
  try {
    return plainValue(JSON.parse(attribute.json_value) as AnyValueJson)
  } catch {
    return attribute.json_value
  }
}
