// The pipeline treats a JSON null like an absent field (Avro has one null): what a payload
// means once its nulls are dropped is what comes back out.
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value).filter(([, item]) => item !== null)
  return Object.fromEntries(entries.map(([key, item]) => [key, withoutNulls(item)])) as T
}
