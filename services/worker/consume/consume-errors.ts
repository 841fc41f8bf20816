// The errors of consuming a batch, recognised by instanceof (batch-processor.ts, decode-message.ts).

/** The schema registry does not answer, or cannot be trusted yet: the batch waits, nothing is committed. */
export class DependencyError extends Error {
  override name = 'DependencyError'
}

/** Bytes that do not start with the Confluent wire format's magic byte 0. */
export class WireFormatError extends Error {
  override name = 'WireFormatError'
}
