import type { SyntheticAgent } from './synthetic-world.ts'

// Agent changes with a chosen effect, for the regression alert and its benchmark: from `at` on, an
// agent's conversations carry a new version of its instructions (and so a new configuration
// fingerprint), and its answers take `addedSeconds` longer, or no longer when it is 0.
export interface VersionChange {
  /** The agent that changes: its index among the world's agents. */
  agentIndex: number
  /** Conversations that start at or after this (epoch ms) have the new version. */
  at: number
  /** The sentence the change adds to the agent's instructions. */
  instruction: string
  /** Seconds added to the LLM's time to first token of every agent answer, so to its e2e_latency (the change's effect). */
  addedSeconds: number
}

/** The agent as it is for a conversation starting at `startAt`: every change up to then applied, in time order. */
export function agentVersionAt(
  agent: SyntheticAgent,
  agentIndex: number,
  startAt: number,
  changes: readonly VersionChange[],
): SyntheticAgent {
  const applied = changes
    .filter((change) => change.agentIndex === agentIndex && change.at <= startAt)
    .sort((a, b) => a.at - b.at)
  if (applied.length === 0) return agent
  return {
    ...agent,
    domain: {
      ...agent.domain,
      systemPrompt: [agent.domain.systemPrompt, ...applied.map((change) => change.instruction)].join(' '),
    },
    addedLatencySeconds:
      (agent.addedLatencySeconds ?? 0) + applied.reduce((sum, change) => sum + change.addedSeconds, 0),
  }
}
