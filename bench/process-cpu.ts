import { readFileSync } from 'node:fs'

// CPU time (user + system) a live process has used so far, read from the kernel: what the
// benchmarks compare per unit of work, since wall-clock rates are noisy on a shared machine.
const ticksPerSecond = 100 // USER_HZ on Linux

export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}
