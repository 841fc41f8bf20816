import type { CommitOptions, CommitOptionsPartition } from '@platformatic/kafka'

// A commit that reports what Kafka accepted — kept free of I/O so its rule has unit tests.
// @platformatic/kafka reads a commit's `offsets` each time it writes an attempt: the first, and one
// more after each rejoin it does for a commit refused by a rebalance, each under the generation it
// knows at that moment. An attempt must carry only a partition this consumer owns in that generation:
// - the library knows a generation before this consumer knows its assignment (JoinGroup answered,
//   SyncGroup not yet): a commit written then is accepted by the broker once the rebalance completes,
//   whoever owns the partition in it. So the first read withdraws the offset unless the library's
//   generation is the one whose assignment this consumer holds (`generationKnown`); the caller
//   reads the partition again from its last commit.
// - a join that did not keep the partition withdraws it before the retry (`withdraw`).
// The commit covered the partition only if the last attempt written carried it (`carried`).

export interface GuardedCommit {
  /** Handed to the library's commit. */
  readonly request: CommitOptions
  /** Keeps in the attempts still to be written only the entries `keep` says (a join moved the rest). */
  withdraw(keep: (entry: CommitOptionsPartition) => boolean): void
  /** Once the library answered: whether the attempt Kafka answered carried the offsets. */
  carried(): boolean
}

export function guardedCommit(
  entries: CommitOptionsPartition[],
  generationKnown: () => boolean,
): GuardedCommit {
  let offsets = entries
  let written = false
  const request: CommitOptions = {
    get offsets() {
      if (!written) {
        written = true
        if (!generationKnown()) offsets = []
      }
      return offsets
    },
    set offsets(value) {
      offsets = value
    },
  }
  return {
    request,
    withdraw(keep) {
      offsets = offsets.filter(keep)
    },
    carried: () => offsets.length > 0,
  }
}
