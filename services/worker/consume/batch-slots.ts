// How many bytes of partition batches the worker holds between decoding them and their commit (what
// bounds the rows it holds, and so its memory). A batch takes its share before it is decoded, not
// after: a batch waiting for room holds only the bytes Kafka returned, never its decoded events and
// rows (measured: bench/results/worker.md, "Worker memory"). The bound is on bytes, not on a count
// of batches: a count of 8 held 8 full 1 MB partition batches while a backlog drained, but at a steady rate,
// when each fetch brings a few messages per partition, it held ~1.3 fetches, so a write could take
// only the batches that found room while the one before it ran, and the rest waited for its commit
// ("Freshness at 500 events/s"). Room is handed on in the order it was asked for, so no partition
// waits behind later ones; a batch larger than the whole bound gets it when nothing else is held.
export class BatchSlots {
  private used = 0
  private readonly waiting: Array<{ bytes: number; grant: () => void }> = []
  private readonly limit: number

  constructor(limitBytes: number) {
    if (!(limitBytes >= 1)) throw new Error(`a batch bound of ${limitBytes} bytes: at least 1 is needed`)
    this.limit = limitBytes
  }

  /** Resolves, once `bytes` fit beside what is held, with the function that gives them back. */
  acquire(bytes: number): Promise<() => void> {
    if (!this.mustWait(bytes)) return Promise.resolve(this.take(bytes))
    return new Promise((resolve) => this.waiting.push({ bytes, grant: () => resolve(this.take(bytes)) }))
  }

  /** Whether acquire(bytes) would wait: the room is taken, or others wait before it. */
  mustWait(bytes: number): boolean {
    return this.waiting.length > 0 || !this.fits(bytes)
  }

  /** Bytes held (waiters not counted). */
  get taken(): number {
    return this.used
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limit
  }

  private take(bytes: number): () => void {
    this.used += bytes
    let given = false
    return () => {
      if (given) return
      given = true
      this.used -= bytes
      // The longest waiters first, as many as now fit; a later, smaller one never passes a larger one.
      while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) this.waiting.shift()!.grant()
    }
  }
}

/** The bytes a batch holds until its commit: its messages' keys and values as Kafka returned them. */
export function batchBytes(messages: ReadonlyArray<{ key: Buffer | null; value: Buffer | null }>): number {
  let bytes = 0
  for (const message of messages) bytes += (message.key?.length ?? 0) + (message.value?.length ?? 0)
  return bytes
}
