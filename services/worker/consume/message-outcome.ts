import type { AvroRecord } from '../../../core/event/event-record.ts'
import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import type { MessageRows } from '../write/batch-rows.ts'
import type { Poison } from './dead-letter.ts'

// What became of one message of a partition batch, as it goes through the steps of the batch
// (batch-processor.ts): decode -> rows -> write -> dead-letter -> commit. One type for every
// step, told apart by `kind`: each step takes the outcomes of the one before, moves the messages
// it is about one kind on, and passes poison through untouched — so every message of the batch
// has exactly one outcome, in offset order, from the first step to the commit.
export interface Received {
  topic: string
  partition: number
  message: ConsumedMessage
}

/** The registry's schema read the bytes. */
export type Decoded = Received & { kind: 'decoded'; record: AvroRecord }
/** The transform made its table rows. */
export type Transformed = Received & { kind: 'transformed'; entry: MessageRows }
/** ClickHouse acknowledged its rows. */
export type Stored = Received & { kind: 'stored'; entry: MessageRows }
/** It can never be stored: it goes to the dead-letter topic (dead-letter.ts), with why. */
export type Poisoned = Poison & { kind: 'poison' }

export type MessageOutcome = Decoded | Transformed | Stored | Poisoned
