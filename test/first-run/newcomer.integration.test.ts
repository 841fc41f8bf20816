import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { partitionOffsets, setCommittedOffsets } from '../../core/kafka/kafka-offsets.ts'
import { topics } from '../../core/kafka/topics.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { loadFixtureText } from '../fixtures/index.ts'
import { testKafka } from '../support/kafka-test-helpers.ts'
import { waitFor } from '../support/wait-for.ts'

// The newcomer's path, automated: the README's main command (`./run dev`) in a fresh `git clone`
// of this repository, with an empty environment (no SCHEMA_REGISTRY_URL, no secrets, the machine's
// own PATH only), then the `send` and `query` commands exactly as it prints them, then Ctrl-C.
// The clone is of the committed HEAD: commit before running this test.
// Two variables are given, and only so that this test shares the running stack instead of
// downloading servers and starting a second stack on the same ports: VA_STACK_DIR (the running
// stack's pid files, so `./run dev` finds it running and leaves it running) and VA_CACHE_DIR (the
// existing download cache, where Node 24 already is). HOME is the real one, for npm's settings.
// The machine's TLS trust settings pass through when set (NODE_EXTRA_CA_CERTS, SSL_CERT_*): on a
// machine whose HTTPS goes through an inspecting proxy, npm cannot reach its registry without
// them (seen here: the install hangs) — a property of the machine, not of the project.
// `./run dev` runs the real `npm install` in the clone (node_modules is missing there).
const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
const stackScript = join(repoRoot, 'scripts/stack/stack.sh')
const stackDir = process.env.VA_STACK_DIR ?? join(repoRoot, '.stack')
const cacheDir = process.env.VA_CACHE_DIR ?? join(homedir(), '.cache/voice-analytics')
const run = promisify(execFile)

const stackRunning = (service: string) =>
  spawnSync('bash', [stackScript, 'status', service], { env: { ...process.env, VA_STACK_DIR: stackDir } })
    .status === 0

const portTaken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    socket.once('connect', () => resolve(!socket.destroy()))
    socket.once('error', () => resolve(false))
  })

describe('a newcomer on a fresh clone', () => {
  const home = mkdtempSync(join(tmpdir(), 'va-first-run-'))
  const clone = join(home, 'voice-analytics')
  const env = {
    HOME: homedir(),
    PATH: '/usr/bin:/bin',
    VA_STACK_DIR: stackDir,
    VA_CACHE_DIR: cacheDir,
    ...Object.fromEntries(
      ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR']
        .filter((name) => process.env[name])
        .map((name) => [name, process.env[name]!]),
    ),
  }
  let dev: ChildProcess | undefined
  let output = ''

  beforeAll(async () => {
    for (const service of ['kafka', 'registry'])
      expect(stackRunning(service), `the local stack's ${service} runs (${stackDir})`).toBe(true)
    // The newcomer's defaults: the ingress, worker metrics and SQL endpoint ports must be free.
    for (const port of [8080, 8124, 9464, 9466])
      expect(await portTaken(port), `port ${port} is free`).toBe(false)
    // The shared stack's contract topic carries every other test's and benchmark's events (a
    // newcomer's fresh stack has none): the default consumer group starts at its end, so the run
    // stores this test's conversation instead of working through someone else's backlog first.
    // Likewise the assembler's default group on the spans topic (other test files' spans: a newcomer
    // has none), where that topic exists yet.
    const config = loadConfig({})
    const starts: [group: string, topic: string, mustExist: boolean][] = [
      [config.WORKER_GROUP_ID, topics.conversationComplete, true],
      [config.ASSEMBLER_GROUP_ID, topics.otlpSpans, false],
    ]
    for (const [group, topic, mustExist] of starts)
      await withKafkaAdmin(testKafka(), async (admin) => {
        if (!mustExist && !(await admin.listTopics()).includes(topic)) return
        // A member that just left may hold the group until its session times out: retry meanwhile.
        await waitFor(
          async () => {
            const ends = await partitionOffsets(admin, topic)
            return setCommittedOffsets(
              admin,
              group,
              topic,
              new Map(ends.map(({ partition, high }) => [partition, high])),
            ).then(
              () => 'set',
              (error: Error) => error.message,
            )
          },
          (outcome) => outcome === 'set',
          90_000,
          `the default consumer group ${group} to be idle`,
        )
      })
    await run('git', ['clone', '--quiet', repoRoot, clone])
  })
  afterAll(async () => {
    // A failed run: Ctrl-C as a user would, then whatever is left of its process group.
    if (dev?.exitCode === null) {
      dev.kill('SIGINT')
      await waitFor(
        async () => dev!.exitCode,
        (code) => code !== null,
        30_000,
        'dev to stop',
      ).catch(() => {})
    }
    try {
      if (dev?.pid) process.kill(-dev.pid, 'SIGKILL')
    } catch {
      // the group is gone already
    }
    rmSync(home, { recursive: true, force: true })
  })

  it('gets a stored, queried conversation with `./run dev` and the commands it prints', async () => {
    // Its own process group, as in a terminal: the cleanup can reach an npm install in progress.
    dev = spawn('./run', ['dev'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    const exited = new Promise<number | null>((resolve) => dev!.once('exit', (code) => resolve(code)))
    dev.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    dev.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })

    const steps = await waitFor(
      async () => output,
      (text) => /^ {2}stop +Ctrl-C$/m.test(text) || dev!.exitCode !== null,
      300_000, // the real npm install comes first
      'the printed instructions',
    )
    expect(dev.exitCode, output).toBeNull()
    const send = /^ {2}send +(\.\/run send .*)$/m.exec(steps)?.[1]
    const query = /^ {2}query +(\.\/run query .*)$/m.exec(steps)?.[1]
    expect(send, steps).toBe('./run send --fixture full')
    expect(query, steps).toBeDefined()
    expect(steps).toMatch(
      /webhook URL +http:\/\/localhost:8080\/webhooks\/conversation-complete\?token=\S{16,}/,
    )

    const sent = await run('bash', ['-c', send!], { cwd: clone, env, timeout: 120_000 })
    expect(sent.stdout).toMatch(/202: 1\b/)

    const sessionId = JSON.parse(loadFixtureText('full')).data.session_id as string
    const answer = await waitFor(
      async () => (await run('bash', ['-c', query!], { cwd: clone, env, timeout: 120_000 })).stdout,
      (text) => text.includes(sessionId),
      180_000,
      'the sent conversation in the printed query',
    )
    expect(answer).toContain(sessionId)
    await waitFor(
      async () => output,
      (text) => /first conversation stored \d+\.\d s after `\.\/run dev` started/.test(text),
      60_000,
      'the time to the first stored conversation',
    )

    dev.kill('SIGINT') // Ctrl-C
    expect(await exited).toBe(0)
    // A quiet run: no library warnings on the way.
    expect(output).not.toMatch(/Warning|partitioner|Limiting retries|"level":40/)
    // The clone stays as it was cloned: no rewritten lock file, no mode change, no stray file.
    expect((await run('git', ['status', '--porcelain'], { cwd: clone })).stdout).toBe('')
    // The stack was running before, so it still is.
    expect(stackRunning('kafka')).toBe(true)
    expect(stackRunning('registry')).toBe(true)
  }, 600_000)
})
