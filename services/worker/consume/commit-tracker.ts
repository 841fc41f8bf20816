// Which offset of a partition may be committed, given the batches handed over, done, failed and
// still in flight — the decision at the heart of "never loses, counts once", kept free of I/O so
// every ordering has a unit test. Rules:
// - a commit covers only a run of done batches from the oldest one not yet committed: a batch done
//   before an older one waits for it;
// - a failed batch rewinds its partition: read again from its first offset (seek); it and every
//   younger batch of the partition are dropped (their completions commit nothing); older batches
//   still in flight stay tracked (they may yet fail, and must then rewind further);
// - after a rewind, batches fetched before the seek took effect (starting beyond the rewind
//   point) are stale: never committed, so nothing between the rewind point and them is skipped;
// - a partition revoked by a rebalance forgets its batches: their late completions (and failures,
//   and failed commits) commit and rewind nothing (the new owner reads from the last commit), even
//   when it is this worker again.
/** `epoch`: the partition's tracking the batch belongs to (a new one after each revocation). */
export type BatchTicket = { key: string; id: number; stale: boolean; epoch: number }

export type CommitDecision =
  /** `from`: the first offset the commit covers (where to rewind to if the commit itself fails). */
  | { action: 'commit'; offset: string; from: bigint }
  | { action: 'seek'; offset: string }
  | { action: 'none'; why: 'waiting_for_older' | 'dropped' | 'stale' }

interface Tracked {
  id: number
  firstOffset: bigint
  lastOffset: bigint
  done: boolean
}

interface PartitionState {
  epoch: number
  batches: Tracked[]
  /** Set by a rewind: the offset the next batch must start at (or before). */
  rewoundTo: bigint | undefined
}

export class CommitTracker {
  private readonly partitions = new Map<string, PartitionState>()
  private nextId = 1
  private nextEpoch = 1

  private state(key: string): PartitionState {
    let state = this.partitions.get(key)
    if (!state) {
      state = { epoch: this.nextEpoch++, batches: [], rewoundTo: undefined }
      this.partitions.set(key, state)
    }
    return state
  }

  /** A batch of `key` (topic/partition) handed over for writing, in fetch order. */
  handedOver(key: string, firstOffset: string, lastOffset: string): BatchTicket {
    const state = this.state(key)
    const ticket = { key, id: this.nextId++, stale: false, epoch: state.epoch }
    const first = BigInt(firstOffset)
    if (state.rewoundTo !== undefined) {
      if (first > state.rewoundTo) return { ...ticket, stale: true } // fetched before the seek
      state.rewoundTo = undefined
    }
    state.batches.push({ id: ticket.id, firstOffset: first, lastOffset: BigInt(lastOffset), done: false })
    return ticket
  }

  private tracked(ticket: BatchTicket): { state: PartitionState; index: number } | undefined {
    const state = this.partitions.get(ticket.key)
    if (!state) return undefined
    const index = state.batches.findIndex((batch) => batch.id === ticket.id)
    return index < 0 ? undefined : { state, index }
  }

  /** The batch is stored (and its poison dead-lettered): what may be committed now. */
  done(ticket: BatchTicket): CommitDecision {
    if (ticket.stale) return { action: 'none', why: 'stale' }
    const found = this.tracked(ticket)
    if (!found) return { action: 'none', why: 'dropped' }
    const { state, index } = found
    state.batches[index]!.done = true
    let run = 0
    while (run < state.batches.length && state.batches[run]!.done) run++
    if (run === 0) return { action: 'none', why: 'waiting_for_older' }
    const from = state.batches[0]!.firstOffset
    const last = state.batches[run - 1]!.lastOffset
    state.batches.splice(0, run)
    return { action: 'commit', offset: (last + 1n).toString(), from }
  }

  /** The batch failed (or its commit did): read its partition again from its first offset. */
  failed(ticket: BatchTicket): CommitDecision {
    if (ticket.stale) return { action: 'none', why: 'stale' }
    const found = this.tracked(ticket)
    if (!found) return { action: 'none', why: 'dropped' }
    return this.rewind(ticket.key, found.state.batches[found.index]!.firstOffset)
  }

  /** The commit of `from` on that `done(ticket)` decided failed: read again from `from`. */
  commitFailed(ticket: BatchTicket, from: bigint): CommitDecision {
    // Revoked meanwhile: the partition's reading started again elsewhere (or here, afresh).
    if (this.partitions.get(ticket.key)?.epoch !== ticket.epoch) return { action: 'none', why: 'dropped' }
    return this.rewind(ticket.key, from)
  }

  /** Reads `key` again from `offset`: the batches in flight from it on are dropped. */
  private rewind(key: string, offset: bigint): CommitDecision {
    const state = this.state(key)
    state.batches = state.batches.filter((batch) => batch.firstOffset < offset)
    state.rewoundTo = state.rewoundTo === undefined || offset < state.rewoundTo ? offset : state.rewoundTo
    return { action: 'seek', offset: offset.toString() }
  }

  /** A rebalance took these partitions away: forget their batches. */
  revoked(keys: readonly string[]): void {
    for (const key of keys) this.partitions.delete(key)
  }

  /** Whether `key` is tracked: its next batch handed over starts a reading (first, or after a revocation). */
  tracking(key: string): boolean {
    return this.partitions.has(key)
  }

  /** The partitions with batches tracked. */
  partitionKeys(): string[] {
    return [...this.partitions.keys()]
  }

  /** Batches of `key` handed over and neither committed nor dropped. */
  inFlight(key: string): number {
    return this.partitions.get(key)?.batches.length ?? 0
  }
}
