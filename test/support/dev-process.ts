import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { waitFor } from './wait-for.ts'

// The operator's processes, as tests run them: `voice-analytics <command>` and `npm run dev`
// (dev-server/main.ts), each with the test's environment on top of this one's.
const cli = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))
const devMain = fileURLToPath(new URL('../../dev-server/main.ts', import.meta.url))
const run = promisify(execFile)

export function voiceAnalytics(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, timeout: 180_000 })
}

export interface DevProcess {
  process: ChildProcess
  /** What it wrote to stdout so far (its JSON log lines). */
  output(): string
  /** SIGTERM, and its exit code. */
  stop(): Promise<number | null>
}

/** `npm run dev`, once it logged "dev pipeline running". */
export async function startDev(env: Record<string, string>): Promise<DevProcess> {
  const dev = spawn(process.execPath, [devMain], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve))
  let output = ''
  dev.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const stop = () => {
    dev.kill('SIGTERM')
    return exited
  }
  try {
    await waitFor(
      async () => output.includes('dev pipeline running'),
      Boolean,
      90_000,
      'dev pipeline running',
    )
  } catch (error) {
    await stop()
    throw error
  }
  return { process: dev, output: () => output, stop }
}
