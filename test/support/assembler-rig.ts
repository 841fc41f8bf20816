import { afterAll, beforeAll } from 'vitest'
import { createSchemaRegistry } from '../../core/event/event-codec.ts'
import type { OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { createOtlpSpansCodec } from '../../core/otlp/otlp-spans-codec.ts'
import type { Registry } from '../../core/runtime/metrics.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { type RunningAssembler, startAssembler } from '../../services/assembler/assembler.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { createTestTopic } from './kafka-test-helpers.ts'
import { startWorkerFixture, type WorkerFixture } from './worker-fixture.ts'
import { testLogger, workerEnv } from './worker-settings.ts'

// The assembler between real servers, for its integration tests: a worker fixture (its topic, the
// embedded ClickHouse) and a spans topic of the test's own, assemblers started on them with a short
// root grace (and the test's ASSEMBLER_* beside), and spans published as the receiver writes them
// (Avro OtlpSpans through the registry, keyed by trace id). Set up in beforeAll, stopped in afterAll.
export interface AssemblerRig {
  /** Set once beforeAll ran. */
  worker: WorkerFixture
  spansTopic: string
  groupId: string
  start(extra?: Record<string, string>, registry?: Registry): Promise<RunningAssembler>
  /** Stops one assembler started by `start` (the others stop in afterAll). */
  stop(assembler: RunningAssembler): Promise<void>
  stopAll(): Promise<void>
  publish(messages: readonly OtlpSpans[]): Promise<void>
}

export function assemblerRig(name: string, defaults: Record<string, string> = {}): AssemblerRig {
  const running: RunningAssembler[] = []
  let encode: (message: OtlpSpans) => Buffer
  const rig: AssemblerRig = {
    worker: undefined as unknown as WorkerFixture,
    spansTopic: '',
    groupId: '',
    async start(extra = {}, registry) {
      const env = workerEnv(rig.worker.topic, rig.worker.dataDir, {
        ASSEMBLER_TOPIC: rig.spansTopic,
        ASSEMBLER_OUTPUT_TOPIC: rig.worker.topic,
        ASSEMBLER_DLQ_TOPIC: `${rig.spansTopic}.dlq`,
        ASSEMBLER_GROUP_ID: rig.groupId,
        ASSEMBLER_METRICS_PORT: '0',
        ASSEMBLER_ROOT_GRACE_MS: '300',
        ...defaults,
        ...extra,
      })
      const assembler = await startAssembler(loadConfig(env), testLogger(), { registry, tickMs: 50 })
      running.push(assembler)
      return assembler
    },
    async stop(assembler) {
      running.splice(running.indexOf(assembler), 1)
      await assembler.stop()
    },
    async stopAll() {
      for (const assembler of running.splice(0)) await assembler.stop()
    },
    async publish(messages) {
      for (const message of messages)
        await rig.worker.producer.sendBatch([
          { topic: rig.spansTopic, messages: [{ key: message.trace_id, value: encode(message) }] },
        ])
    },
  }
  beforeAll(async () => {
    rig.worker = await startWorkerFixture(name, 1)
    rig.spansTopic = await createTestTopic(rig.worker.kafka, `${name}-spans`, 2)
    rig.groupId = `va-test-assembler-${rig.spansTopic}`
    encode = (await createOtlpSpansCodec(createSchemaRegistry(schemaRegistryUrl()))).encode
    await rig.worker.startWorker()
  })
  afterAll(async () => {
    await rig.stopAll()
    await rig.worker?.stop()
  })
  return rig
}
