// The insert_deduplication_token of one write: the Kafka offset ranges it covers. Retrying the
// same write sends the same token, and ClickHouse drops the repeated blocks
// (non_replicated_deduplication_window on every table, including the rollup behind the view).
// The transform's version is part of it so that a replay by a changed transform is not dropped.
export const transformVersion = 'rows-v1'

export interface OffsetRange {
  topic: string
  partition: number
  firstOffset: string
  lastOffset: string
}

export function insertToken(ranges: readonly OffsetRange[]): string {
  const parts = [...ranges]
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
    .map((range) => `${range.topic}/${range.partition}/${range.firstOffset}-${range.lastOffset}`)
  return `${transformVersion}:${parts.join(',')}`
}
