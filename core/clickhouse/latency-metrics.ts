/** The latency metrics of a history item the rollups aggregate (the worker's feed arrays, the hour rollup's columns). */
export const latencyMetrics = [
  'e2e_latency',
  'llm_node_ttft',
  'tts_node_ttfb',
  'transcription_delay',
  'end_of_turn_delay',
] as const
export type LatencyMetric = (typeof latencyMetrics)[number]
