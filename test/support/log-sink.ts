import { Writable } from 'node:stream'

/** A stream that keeps every line written to it (a logger's destination): what a test reads of the logs. */
export function logSink(): { sink: Writable; logs: string[] } {
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk))
      done()
    },
  })
  return { sink, logs }
}
