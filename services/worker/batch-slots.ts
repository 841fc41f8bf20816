// How many partition batches the worker holds between decoding them and their commit (what bounds
// the rows it holds, and so its memory). A batch takes a slot before it is decoded, not after: a
// batch waiting for room holds only the bytes Kafka returned, never its decoded events and rows
// (measured: bench/results/worker.md, "Worker memory"). Slots are handed on in the order they were
// asked for, so no partition waits behind later ones.
export class BatchSlots {
  private used = 0
  private readonly waiting: Array<() => void> = []
  private readonly limit: number

  constructor(limit: number) {
    if (!(limit >= 1)) throw new Error(`a batch limit of ${limit}: at least 1 is needed`)
    this.limit = limit
  }

  /** Resolves once a slot is this caller's; give it back with release(). */
  acquire(): Promise<void> {
    if (this.used < this.limit) {
      this.used++
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /** Gives a slot back: to the longest waiter, if any. */
  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else if (this.used > 0) this.used--
  }

  /** Slots taken (waiters not counted). */
  get taken(): number {
    return this.used
  }
}
