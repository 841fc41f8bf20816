import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

// scripts/ensure-debian-tools.sh decides what `./run test` installs on a new machine (#21): nothing
// when every command is there, each missing package once, and a clear failure naming the packages
// and the command when it cannot install. The installer is a stand-in here (APT_GET), so the test
// changes nothing on the machine; the fresh-machine run of the whole suite uses the real apt-get.
const script = fileURLToPath(new URL('../../scripts/ensure-debian-tools.sh', import.meta.url))
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function run(args: string[], aptGet: string, binDir?: string) {
  const path = binDir ? `${binDir}:/usr/bin:/bin` : '/usr/bin:/bin'
  return spawnSync('bash', [script, ...args], { encoding: 'utf8', env: { PATH: path, APT_GET: aptGet } })
}

/** An installer that records its arguments and, on `install`, puts each package's command on PATH. */
function recordingInstaller(): { aptGet: string; binDir: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'va-apt-'))
  dirs.push(dir)
  const log = join(dir, 'calls.log')
  const aptGet = join(dir, 'apt-get')
  writeFileSync(
    aptGet,
    `#!/bin/sh\necho "$*" >> ${log}\n[ "$1" = install ] || exit 0\nfor p in "$@"; do case "$p" in -*|install) ;; *) printf '#!/bin/sh\\n' > ${dir}/va-tool-$p; chmod +x ${dir}/va-tool-$p ;; esac; done\n`,
  )
  chmodSync(aptGet, 0o755)
  return { aptGet, binDir: dir, log }
}

describe('ensure-debian-tools.sh', () => {
  it('does nothing when every command is on PATH', () => {
    const result = run(['sh:dash', 'bash:bash'], '/nonexistent/apt-get')
    expect(result.status).toBe(0)
    expect(result.stderr).toBe('')
  })

  it('fails naming each missing package once and the command that installs it, when it cannot install', () => {
    const result = run(
      ['va-tool-a:pkg-one', 'va-tool-b:pkg-one', 'va-tool-c:pkg-two', 'sh:dash'],
      '/nonexistent/apt-get',
    )
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('missing va-tool-a va-tool-b va-tool-c')
    expect(result.stderr).toContain('apt-get update && apt-get install -y pkg-one pkg-two')
  })

  it('checks a python3 module by importing it (python3-venv has no command): there, nothing; missing, its package', () => {
    expect(run(['python3.json:python3'], '/nonexistent/apt-get')).toMatchObject({ status: 0, stderr: '' })
    const missing = run(['python3.va_no_such_module:python3-va-nothing'], '/nonexistent/apt-get')
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain('missing python3.va_no_such_module')
    expect(missing.stderr).toContain('apt-get install -y python3-va-nothing')
  })

  it.runIf(process.getuid?.() === 0)('as root, installs the missing packages once, after an update', () => {
    const installer = recordingInstaller()
    const result = run(['va-tool-x:x', 'va-tool-y:y', 'sh:dash'], installer.aptGet, installer.binDir)
    expect(result.stderr).toContain('installing the Debian packages x y')
    expect(result.status).toBe(0)
    expect(readFileSync(installer.log, 'utf8')).toBe(
      'update -qq\ninstall -y -qq --no-install-recommends x y\n',
    )
  })

  it.runIf(process.getuid?.() === 0)('fails when the package installed does not bring the command', () => {
    const installer = recordingInstaller()
    const result = run(['va-tool-z:other-name', 'sh:dash'], installer.aptGet, installer.binDir)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('va-tool-z is still not on PATH')
  })
})
