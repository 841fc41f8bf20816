import { safeLong } from './avro-event-writer.ts'
import { uuidPattern } from './event-validation.ts'
import { type CharCodes, timestampProblem } from './storable-timestamp.ts'

// Whether a scalar value fits its schema field, as the ingress's two ways to Avro decide it: the
// walk over a parsed body (validating-event-encoder.ts) and the transcoder of a body's bytes
// (json-avro-transcoder.ts). One definition, so the two cannot take different values; the
// wording of a misfit stays event-validation.ts's.
export const uuidFits = (value: string): boolean => uuidPattern.test(value)
export const timestampFits = (value: string | CharCodes): boolean => timestampProblem(value) === undefined
export const doubleFits = (value: number): boolean => Number.isFinite(value)
/** A whole number the compiled writer takes (avsc's bound); validation alone would take more. */
export const longFits = (value: number): boolean => value % 1 === 0 && value >= -safeLong && value <= safeLong
