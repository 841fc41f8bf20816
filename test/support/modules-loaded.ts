import { execFileSync } from 'node:child_process'

// Which files of an npm package a service's entry module loads, checked in a fresh process as the
// service starts (importing the module runs no service: its start is behind `import.meta.main`).
// The ingress and the worker use it to prove they never load kafkajs.
export function packageFilesLoadedBy(mainModule: string, packageName: string): string[] {
  const script = `
    const { createRequire } = await import('node:module')
    await import(${JSON.stringify(mainModule)})
    const loaded = Object.keys(createRequire(import.meta.url).cache)
    const inPackage = new RegExp('[\\\\\\\\/]node_modules[\\\\\\\\/]' + ${JSON.stringify(packageName)} + '[\\\\\\\\/]')
    console.log(JSON.stringify(loaded.filter((path) => inPackage.test(path))))
  `
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  return JSON.parse(output.trim().split('\n').at(-1)!) as string[]
}
