import { type Command, InvalidArgumentError } from 'commander'
import type { RetentionSettings } from '../../core/clickhouse/clickhouse-retention.ts'

// `migrate` and `replay` change the tables' retention only when asked on their command line: the
// caller's CLICKHOUSE_TTL_DAYS (or its absence) must not silently reset a TTL someone chose.

export interface RetentionOptions {
  ttlDays?: number
  rollupTtlDays?: number
}

/** A number of days: a whole number, 0 or more (0 removes the TTL). */
export function parseDays(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number of days, 0 or more')
  return Number(value.trim())
}

export function addRetentionOptions(command: Command): Command {
  return command
    .option(
      '--ttl-days <days>',
      "set the conversation tables' TTL to this many days (0 removes it); without it the TTL is left as it is",
      parseDays,
    )
    .option(
      '--rollup-ttl-days <days>',
      "set the latency rollup's TTL to this many days (0 removes it); without it the TTL is left as it is",
      parseDays,
    )
}

export function retentionFromOptions(options: RetentionOptions): RetentionSettings {
  return { conversationDays: options.ttlDays, rollupDays: options.rollupTtlDays }
}
