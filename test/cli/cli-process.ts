import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// Runs the real CLI (`node cli/bin.ts ...`) as a child process with its config pointed at
// a temp dir, and keeps everything it printed: the tests check that no token or secret ever shows.

const bin = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))

export type CliResult = { code: number | null; stdout: string; stderr: string }

/** Every line any CLI run of this process printed, stdout and stderr. */
export const transcript: string[] = []

export function cliEnvironment(configDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith('VOICE_ANALYTICS_') && name !== 'WEBHOOK_SECRETS' && name !== 'XDG_CONFIG_HOME',
    ),
  )
  return { ...inherited, VOICE_ANALYTICS_CONFIG_DIR: configDir, NO_COLOR: '1', ...extra }
}

export type RunningCli = {
  /** Resolves with the first match of `pattern` in stderr so far. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>
  done: Promise<CliResult>
}

export function startCli(args: string[], env: NodeJS.ProcessEnv): RunningCli {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  const waiters: Array<{ pattern: RegExp; resolve(match: RegExpMatchArray): void }> = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    for (const waiter of [...waiters]) {
      const match = stderr.match(waiter.pattern)
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(match)
      }
    }
  })
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => {
      transcript.push(stdout, stderr)
      resolve({ code, stdout, stderr })
    })
  })
  return {
    done,
    waitForStderr: (pattern) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const match = stderr.match(pattern)
        if (match) return resolve(match)
        waiters.push({ pattern, resolve })
        done.then((result) =>
          reject(new Error(`the CLI exited (${result.code}) before printing ${pattern}:\n${result.stderr}`)),
        )
      }),
  }
}

export const runCli = (args: string[], env: NodeJS.ProcessEnv) => startCli(args, env).done

export async function writeCliConfig(configDir: string, config: unknown): Promise<void> {
  await mkdir(configDir, { recursive: true })
  await writeFile(join(configDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`)
}
