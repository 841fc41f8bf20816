import type { Config } from '../../core/settings/env.ts'
import type { AssemblySettings } from './assembly/assembly-settings.ts'

// The assembly's settings from ASSEMBLER_* (docs/reference.md).
export function assemblySettings(config: Config): AssemblySettings {
  return {
    rootGraceMs: config.ASSEMBLER_ROOT_GRACE_MS,
    idleMs: config.ASSEMBLER_IDLE_SECONDS * 1000,
    lateWindowMs: config.ASSEMBLER_LATE_WINDOW_SECONDS * 1000,
    restoreMs: config.ASSEMBLER_RESTORE_SECONDS * 1000,
    forgottenIds: 100_000,
    maxSpans: config.ASSEMBLER_MAX_SPANS,
    maxSpanBytes: config.ASSEMBLER_MAX_SPAN_MB * 1024 * 1024,
    maxTraces: config.ASSEMBLER_MAX_TRACES,
  }
}
