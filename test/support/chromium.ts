import { spawnSync } from 'node:child_process'

// The browser of the page tests: Debian's chromium, which `./run test` installs. A test that needs
// it and cannot find it fails, saying how to get it; it never skips. CHROMIUM_PATH names another.
export const chromiumInstallHint =
  "install Debian's chromium package: `sudo apt-get update && sudo apt-get install -y chromium` " +
  '(`./run test` does this itself when it runs as root), or set CHROMIUM_PATH to a Chromium binary'

export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8', env })
  const path = found.stdout.trim()
  if (found.status !== 0 || !path) throw new Error(`chromium not found: ${chromiumInstallHint}`)
  return path
}
