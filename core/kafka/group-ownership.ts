// Which partitions a consumer has owned without a break, across the joins of its group — kept
// free of I/O so the rule has unit tests. A partition is owned without a break when this consumer
// held it in the previous generation and the next join gives it again. That needs the joins to be
// consecutive: the same member, the very next generation. A member that missed a generation (its
// session expired, it was away) may have lost a partition to another owner, who read and committed
// it meanwhile; then every partition counts as newly gained (read again from the committed offset,
// and no batch or commit of before the gap survives).

export interface GroupJoin {
  memberId: string | null
  generationId: number | undefined
  /** topic/partition keys the join assigned to this member. */
  assigned: ReadonlySet<string>
}

export interface Ownership {
  memberId: string | null
  generationId: number | undefined
  /** Each owned partition's key -> the local join count since which it is owned without a break. */
  since: ReadonlyMap<string, number>
}

export const noOwnership: Ownership = { memberId: null, generationId: undefined, since: new Map() }

/** Whether `join` directly follows the generation `previous` belonged to, for the same member. */
export function consecutive(previous: Ownership, join: GroupJoin): boolean {
  return (
    previous.memberId !== null &&
    previous.memberId === join.memberId &&
    previous.generationId !== undefined &&
    join.generationId === previous.generationId + 1
  )
}

/**
 * Whether `member` is in the generation `ownership` came from. Two uses: a join reported again
 * (@platformatic/kafka deduplicates concurrent rejoins — a heartbeat and a commit both asked for one —
 * into one JoinGroup request but completes it once per caller), and a commit about to be written
 * (the library learns a new generation before its assignment).
 */
export function sameGeneration(
  ownership: Ownership,
  member: { memberId: string | null; generationId: number | undefined },
): boolean {
  return (
    ownership.memberId !== null &&
    ownership.memberId === member.memberId &&
    ownership.generationId !== undefined &&
    member.generationId === ownership.generationId
  )
}

/** The ownership after `join`, the `joinCount`-th join this consumer saw. */
export function afterJoin(previous: Ownership, join: GroupJoin, joinCount: number): Ownership {
  // One generation's assignment is one: told again, it changes nothing.
  if (sameGeneration(previous, join)) return previous
  const before = consecutive(previous, join) ? previous.since : new Map<string, number>()
  return {
    memberId: join.memberId,
    generationId: join.generationId,
    since: new Map([...join.assigned].map((key) => [key, before.get(key) ?? joinCount])),
  }
}

/** Owned without a break since before `joinCount` (e.g. the join a batch was fetched under). */
export function ownedSince(ownership: Ownership, key: string, joinCount: number): boolean {
  const since = ownership.since.get(key)
  return since !== undefined && since <= joinCount
}
