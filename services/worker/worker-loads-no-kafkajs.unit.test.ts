import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { packageFilesLoadedBy } from '../../test/support/modules-loaded.ts'

// The worker talks to Kafka with @platformatic/kafka only (consumer, DLQ producer, admin): loading
// kafkajs beside it costs resident memory for nothing.
describe('the worker process', () => {
  it('never loads kafkajs', () => {
    expect(packageFilesLoadedBy(fileURLToPath(new URL('./main.ts', import.meta.url)), 'kafkajs')).toEqual([])
  }, 60_000) // a fresh Node process loading the whole service: seconds on a busy machine
})
