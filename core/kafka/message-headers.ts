// Kafka message headers as the services hand them over and read them: a name may repeat (Kafka
// keeps every header of a record, in order), so a value may be a list.

/** Message headers as callers hand them over: a name -> one value, or several in order. */
export interface MessageHeaders {
  [name: string]: Buffer | string | (Buffer | string)[] | undefined
}

/** Each header as Kafka writes it: a name with several values is one header per value, in order. */
export function* eachHeader(headers: MessageHeaders): Generator<[string, Buffer | string]> {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const item of value) yield [name, item]
    else yield [name, value]
  }
}

/** The bytes of the headers' names and values, plus `overheadPerHeader` for each header. */
export function headersBytes(headers: MessageHeaders, overheadPerHeader = 0): number {
  let total = 0
  for (const [name, value] of eachHeader(headers))
    total +=
      Buffer.byteLength(name) +
      (Buffer.isBuffer(value) ? value.length : Buffer.byteLength(value)) +
      overheadPerHeader
  return total
}
