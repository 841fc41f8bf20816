import { readFileSync } from 'node:fs'

// CPU time (user + system) a live process has used so far, read from the kernel: what the
// benchmarks compare per unit of work, since wall-clock rates are noisy on a shared machine.
const ticksPerSecond = 100 // USER_HZ on Linux

function statCpuSeconds(file: string): number {
  const stat = readFileSync(file, 'utf8')
  // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`)
}

/** The process's main thread alone (in Node: the JS thread; not the engine's or V8's helpers). */
export function mainThreadCpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`)
}
