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
