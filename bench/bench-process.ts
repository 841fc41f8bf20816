import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

// Helpers shared by the benchmarks: a service in a child process (so the load generator does
// not share its event loop) and its peak resident memory, read from the kernel.
export interface ServiceProcess {
  child: ChildProcess
  output: string[]
  stop: () => Promise<void>
}

export function startService(
  script: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): ServiceProcess {
  const child = spawn(process.execPath, [...nodeFlags, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output: string[] = []
  child.stdout?.on('data', (chunk) => output.push(String(chunk)))
  child.stderr?.on('data', (chunk) => output.push(String(chunk)))
  return {
    child,
    output,
    stop: () =>
      new Promise((resolve) => {
        // Exited, or killed by a signal (e.g. V8 aborting out of memory): no 'exit' event will come.
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/**
 * What a package.json start script sets before the script runs: the environment assignments in
 * front of `node` (NAME=value) and node's own flags (--x), e.g. `MALLOC_ARENA_MAX=2 node
 * --max-semi-space-size=16 services/worker/main.ts` -> { MALLOC_ARENA_MAX: '2' }, ['--max-semi-space-size=16'].
 * Words after the script are its arguments, not node's.
 */
export function startScriptParts(line: string): { environment: Record<string, string>; nodeFlags: string[] } {
  const words = line.trim().split(/\s+/).filter(Boolean)
  const nodeAt = words.indexOf('node')
  if (nodeAt < 0) return { environment: {}, nodeFlags: [] }
  const environment: Record<string, string> = {}
  for (const word of words.slice(0, nodeAt)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word)
    if (!match)
      throw new Error(`not an environment assignment before node: ${word} in ${JSON.stringify(line)}`)
    environment[match[1]!] = match[2]!
  }
  const nodeFlags: string[] = []
  for (const word of words.slice(nodeAt + 1)) {
    if (!word.startsWith('-')) break
    nodeFlags.push(word)
  }
  return { environment, nodeFlags }
}

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN)
  return kb / 1024
}

export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const response = await fetch(url).catch(() => undefined)
    if (response?.ok) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`)
}

export function machineLine(): string {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU'
  const memory = /MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]
  return `${cpu}, ${(globalThis.navigator?.hardwareConcurrency ?? 0) || 'n'} cores, ${Math.round(Number(memory) / 1024 / 1024)} GiB, Node ${process.version}`
}

/** The two checkouts an A/B bench compares: A = BENCH_A_DIR (required), B = BENCH_B_DIR (default this one). */
export function abCheckouts(): { A: string; B: string } {
  if (!process.env.BENCH_A_DIR)
    throw new Error('set BENCH_A_DIR to the checkout to compare against (e.g. a worktree of main)')
  return {
    A: resolve(process.env.BENCH_A_DIR),
    B: resolve(process.env.BENCH_B_DIR ?? new URL('..', import.meta.url).pathname),
  }
}
