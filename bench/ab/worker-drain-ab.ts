import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { environmentPairs, environmentPrefix } from '../../core/runtime/shell-environment.ts'
import { conversationPool } from '../bench-conversations.ts'
import { abCheckouts } from '../bench-process.ts'
import {
  benchKafkaAndCodec,
  createBacklogTopic,
  deleteBacklogTopic,
  fillBacklog,
  measureBacklogDrain,
  startWorkerCommand,
} from '../worker-backlog.ts'

// `node bench/ab/worker-drain-ab.ts`: the worker of two checkouts (A: BENCH_A_DIR, required;
// B: BENCH_B_DIR, default this one) draining the same backlog, alternating A B B A per round so that both see the same
// machine: a throwaway topic (6 partitions) filled once with BENCH_CONVERSATIONS (12,000) generated
// conversations; per run a fresh worker process (`services/worker/main.ts` of that checkout, a temp
// data directory, a fresh group). Prints process CPU per conversation (the drain alone, its main JS
// thread apart, and the whole process with start-up), conversations/s, peak RSS and the load average. BENCH_ROUNDS (1).
// Each worker runs with the node flags of its checkout's `start:worker`; BENCH_A_NODE_FLAGS /
// BENCH_B_NODE_FLAGS add to them (space-separated, e.g. "--trace-gc"); BENCH_A_ENV / BENCH_B_ENV add
// environment (space-separated NAME=value, e.g. "MALLOC_ARENA_MAX=2"); BENCH_OUTPUT_DIR: each run's worker output goes there (run-N-A.log).
const total = Number(process.env.BENCH_CONVERSATIONS ?? 12_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 1)
const dirs = abCheckouts()
type Code = keyof typeof dirs
const nodeFlags = (code: Code) => (process.env[`BENCH_${code}_NODE_FLAGS`] ?? '').split(' ').filter(Boolean)
const extraEnv = (code: Code) => environmentPairs(process.env[`BENCH_${code}_ENV`])
const startCommand = (code: Code) => startWorkerCommand(`${dirs[code]}/services/worker/main.ts`)
/** Each side's worker runs with its checkout's start:worker flags, then these. */
const workerFlags = (code: Code) => [...startCommand(code).nodeFlags, ...nodeFlags(code)]
/** Each side's environment and flags, as its worker gets them. */
const describe = (code: Code) =>
  [environmentPrefix({ ...startCommand(code).environment, ...extraEnv(code) }), ...workerFlags(code)]
    .filter(Boolean)
    .join(' ')
const outputDir = process.env.BENCH_OUTPUT_DIR
let runNumber = 0

const { kafka, codec } = await benchKafkaAndCodec('bench-drain-ab')
const pool = conversationPool()
const topic = `bench.drain-ab.${randomUUID()}`
await createBacklogTopic(kafka, topic)
try {
  const filled = await fillBacklog({ kafka, codec, conversation: pool.event, topic, count: total })
  console.log(
    `${total} conversations (~${pool.itemsPerConversation.toFixed(1)} items, ${filled.avroKb.toFixed(1)} KB Avro); ` +
      `A = ${dirs.A} ${describe('A')}, B = ${dirs.B} ${describe('B')}`,
  )
  console.log(
    '| run | ms CPU / conversation (drain) | of it the main JS thread | whole process | conversations/s | peak RSS MB | load at start / end |',
  )
  console.log('|---|---|---|---|---|---|---|')
  for (let round = 0; round < rounds; round++)
    for (const code of ['A', 'B', 'B', 'A'] as Code[]) {
      const loadBefore = loadavg()[0]!
      const run = await measureBacklogDrain({
        topic,
        total,
        workerMain: `${dirs[code]}/services/worker/main.ts`,
        nodeFlags: nodeFlags(code),
        env: extraEnv(code),
        outputFile: outputDir ? `${outputDir}/run-${++runNumber}-${code}.log` : undefined,
      })
      console.log(
        `| ${code} | ${run.drainCpuMsPerConversation.toFixed(2)} | ${run.drainMainThreadCpuMsPerConversation.toFixed(2)} | ${run.cpuMsPerConversation.toFixed(2)} | ` +
          `${run.conversationsPerSecond.toFixed(0)} | ${run.rssMb.toFixed(0)} | ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)} |`,
      )
    }
} finally {
  await deleteBacklogTopic(kafka, topic)
}
