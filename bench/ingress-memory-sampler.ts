import { appendFileSync } from 'node:fs'

// Preloaded into the ingress by bench/ingress-memory.ts (`--import`): appends process.memoryUsage()
// to MEMORY_SAMPLES_FILE every 100 ms, one JSON line each, so the peak can be split into heap and
// memory outside it. Nothing else; the timer does not hold the process open.
const file = process.env.MEMORY_SAMPLES_FILE
if (file)
  setInterval(
    () => appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...process.memoryUsage() })}\n`),
    100,
  ).unref()
