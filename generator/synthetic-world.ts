import type { DomainScript } from './conversation-scripts.ts'
import { domainScripts } from './conversation-scripts.ts'
import { checkCount, round } from './option-checks.ts'
import type { Random } from './random.ts'

// The agents, campaigns and tests synthetic conversations belong to, drawn once per data set so
// that many conversations share them (as dashboards and per-agent queries expect).
export interface SyntheticAgent {
  id: string
  name: string
  domain: DomainScript
  /** Where this agent hands over to (the domain's specialist). */
  specialistId: string
  /** Slower or faster model and voice stack: scales this agent's latencies. */
  latencyScale: number
  /** Seconds a version change added to every turn's LLM time to first token (agent-versions.ts). */
  addedLatencySeconds?: number
}
export interface SyntheticCampaign {
  id: string
  name: string
  agent: SyntheticAgent
  /** The platform's number the campaign calls from. */
  callerNumber: string
}
export interface SyntheticTest {
  id: string
  name: string
  agent: SyntheticAgent
}
export interface SyntheticWorld {
  agents: SyntheticAgent[]
  campaigns: SyntheticCampaign[]
  tests: SyntheticTest[]
  testRunIds: string[]
}

export interface WorldOptions {
  /** Number of agents (default 6). */
  agents?: number
  /** Number of outbound campaigns (default 4). */
  campaigns?: number
  /** Number of test definitions (default 8). */
  tests?: number
  /** Number of test runs the tests are spread over (default 3). */
  testRuns?: number
}

/** The name of the world's agent at this index: one per domain in turn, numbered once they repeat. */
export function agentNameAt(index: number): string {
  const domain = domainScripts[index % domainScripts.length]!
  const generation = Math.floor(index / domainScripts.length)
  const baseName = domain.agentNames[generation % domain.agentNames.length]!
  return generation < domain.agentNames.length ? baseName : `${baseName} ${generation + 1}`
}

export function createWorld(rng: Random, options: WorldOptions = {}): SyntheticWorld {
  const agents = Array.from({ length: checkCount('agents', options.agents ?? 6, 1) }, (_, index) => {
    const domain = domainScripts[index % domainScripts.length]!
    return {
      id: rng.uuid(),
      name: agentNameAt(index),
      domain,
      specialistId: rng.uuid(),
      latencyScale: round(rng.float(0.8, 1.4), 2),
    }
  })
  const campaigns = Array.from({ length: checkCount('campaigns', options.campaigns ?? 4) }, (_, index) => {
    const agent = agents[index % agents.length]!
    return {
      id: rng.uuid(),
      name: `${rng.pick(agent.domain.campaignNames)} #${index + 1}`,
      agent,
      callerNumber: `+4930${rng.digits(7)}`,
    }
  })
  const tests = Array.from({ length: checkCount('tests', options.tests ?? 8) }, (_, index) => {
    const agent = agents[index % agents.length]!
    return { id: rng.uuid(), name: rng.pick(agent.domain.testNames), agent }
  })
  const testRunIds = Array.from({ length: checkCount('testRuns', options.testRuns ?? 3, 1) }, () =>
    rng.uuid(),
  )
  return { agents, campaigns, tests, testRunIds }
}
