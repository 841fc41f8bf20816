// The errors of consuming a batch, recognised by instanceof (batch-processor.ts, decode-message.ts; WireFormatError: core/event/cached-schema-decoder.ts).

/** The schema registry does not answer, or cannot be trusted yet: the batch waits, nothing is committed. */
export class DependencyError extends Error {
  override name = 'DependencyError'
}
