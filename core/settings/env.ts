import { z } from 'zod'
import { defaultBodyLimitBytes, topics } from '../kafka/topics.ts'

// Every setting of the pipeline, validated once at start; a bad value names its variable.
// Port 0 asks the OS for a free port (tests, benchmarks).
const port = z.coerce.number().int().min(0).max(65535)
const positiveInt = z.coerce.number().int().positive()
// 'localhost:8123' parses as a URL with scheme 'localhost:': only http(s) is meant.
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })

const envSchema = z
  .object({
    KAFKA_BROKERS: z.string().min(1).default('localhost:9092'),
    KAFKA_CLIENT_ID: z.string().min(1).default('voice-analytics'),
    // The project's own registry (scripts/stack, docker compose): Apicurio's Confluent-compatible API.
    SCHEMA_REGISTRY_URL: httpUrl.default('http://localhost:8081/apis/ccompat/v7'),
    CLICKHOUSE_URL: httpUrl.optional(),
    CLICKHOUSE_USER: z.string().default('default'),
    CLICKHOUSE_PASSWORD: z.string().default(''),
    CLICKHOUSE_DATA_DIR: z.string().min(1).default('./data/clickhouse'),
    CLICKHOUSE_DATABASE: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier')
      .default('voice_analytics'),
    /** Cluster mode: the cluster name of the servers' remote_servers; migrations emit ON CLUSTER DDL (docs/scaling.md). */
    CLICKHOUSE_CLUSTER: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier (a cluster name of remote_servers)')
      .optional(),
    WEBHOOK_SECRETS: z.string().default(''),
    /** What the ingress removes per source before Kafka, e.g. "prod:phone=hmac,content=mask;staging:content=drop" (core/privacy/pii). */
    PII_POLICY: z.string().default(''),
    /** Secret key of the phone-number HMAC (phone=hmac); never logged. */
    PII_HMAC_KEY: z.string().optional(),
    /** Key of the erasure audit's selector hash (`forget`); unset: PII_HMAC_KEY, else a local secret. Never logged. */
    ERASURE_HMAC_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    /** How long Kafka keeps the pipeline's topics (set when they are created): erased callers' raw events last this long. */
    KAFKA_RETENTION_HOURS: positiveInt.default(168),
    INGRESS_HOST: z.string().default('0.0.0.0'),
    INGRESS_PORT: port.default(8080),
    INGRESS_BODY_LIMIT_BYTES: positiveInt.default(defaultBodyLimitBytes),
    INGRESS_PUBLISH_TIMEOUT_MS: positiveInt.default(10_000),
    /** Bytes of events the ingress holds waiting for Kafka; beyond it, 503 + Retry-After. */
    INGRESS_QUEUE_LIMIT_BYTES: positiveInt.default(64 * 1024 * 1024),
    /** Longest a client may take to send a whole request (headers and body); then the socket closes. */
    INGRESS_REQUEST_TIMEOUT_MS: positiveInt.default(60_000),
    /** Longest a connection may stay silent (no bytes either way) before it is closed. */
    INGRESS_CONNECTION_TIMEOUT_MS: positiveInt.default(30_000),
    WORKER_METRICS_PORT: port.default(9464),
    WORKER_GROUP_ID: z.string().min(1).default('voice-analytics-worker'),
    // The worker's topics: the contract names by default; tests point a worker at throwaway topics.
    WORKER_TOPIC: z.string().min(1).default(topics.conversationComplete),
    WORKER_DLQ_TOPIC: z.string().min(1).default(topics.deadLetter),
    /** Kafka fetch size per partition: bounds the messages (and rows) of one insert. */
    WORKER_MAX_BYTES_PER_PARTITION: positiveInt.default(1024 * 1024),
    /** Freshness bound: the longest a consumed batch waits for others to join its ClickHouse write (a full write goes at once). */
    WORKER_MAX_BATCH_AGE_MS: z.coerce.number().int().min(0).max(60_000).default(50),
    /** How often the worker takes newly stored minute rows into the hour rollup (write/hour-rollup-keeper.ts): how late a late call shows in a panel's whole hours; at most 4 min, within the 5 the panels leave an hour that just ended. */
    WORKER_HOUR_ROLLUP_INTERVAL_MS: z.coerce.number().int().min(100).max(240_000).default(10_000),
    /** How long a silent (crashed) worker keeps its partitions before the group moves them on. */
    WORKER_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(30_000),
    /** Seconds a worker may hold batches without committing (retrying, paused) before /healthz says 503 and worker_stalled is 1. */
    WORKER_STALL_SECONDS: positiveInt.default(120),
    // The OTLP assembler (services/assembler; docs/otlp.md, "The assembler").
    ASSEMBLER_GROUP_ID: z.string().min(1).default('voice-analytics-assembler'),
    ASSEMBLER_TOPIC: z.string().min(1).default(topics.otlpSpans),
    /** Where assembled conversations go: the worker's topic. */
    ASSEMBLER_OUTPUT_TOPIC: z.string().min(1).default(topics.conversationComplete),
    ASSEMBLER_DLQ_TOPIC: z.string().min(1).default(topics.otlpSpansDeadLetter),
    ASSEMBLER_METRICS_PORT: port.default(9466),
    /** Wait after a trace's root span (agent_session / conversation) arrived, for children in the SDK's next batch. */
    ASSEMBLER_ROOT_GRACE_MS: z.coerce.number().int().min(0).default(2_000),
    /** A trace whose root never comes is emitted, marked incomplete, after this long without a new span. */
    ASSEMBLER_IDLE_SECONDS: positiveInt.default(300),
    /** An emitted trace's spans are kept this long: a late span makes a newer, complete delivery. */
    ASSEMBLER_LATE_WINDOW_SECONDS: positiveInt.default(600),
    /** On reading a partition afresh (a start, a rebalance): how far back before its committed offset the emitted traces are restored. */
    ASSEMBLER_RESTORE_SECONDS: positiveInt.default(2_700),
    /** Spans held in memory; beyond it kept traces are dropped, then the oldest open ones emitted early. */
    ASSEMBLER_MAX_SPANS: positiveInt.default(500_000),
    /** What the spans held weigh at most (MB, estimated from their texts); within the 1,536 MB heap the assembler runs with. */
    ASSEMBLER_MAX_SPAN_MB: positiveInt.default(512),
    ASSEMBLER_MAX_TRACES: positiveInt.default(20_000),
    /** `source:mapping` pairs (e.g. lk:livekit-agents-1.7,bot:pipecat-1.x); a source not named is detected from its spans. */
    ASSEMBLER_SOURCE_MAPPINGS: z.string().default(''),
    /** Agent names that get their own `agent` label on the worker's voice_* metrics (comma list); empty: the first METRICS_AGENT_LIMIT names seen. */
    METRICS_AGENT_ALLOWLIST: z.string().default(''),
    METRICS_AGENT_LIMIT: z.coerce.number().int().min(0).default(50),
    /** Distinct values per open enumeration label (status, telecom provider, test status, ...) before `other`. */
    METRICS_LABEL_VALUE_LIMIT: z.coerce.number().int().min(1).default(20),
    /** A conversation counts in the voice_* metrics the alerts read only when its time is within this many seconds of the worker's clock (either side); others count in voice_conversations_backfilled_total. */
    METRICS_LIVE_WINDOW_SECONDS: positiveInt.default(3600),
    /** A silence longer than this many seconds between the first and the last speech of a conversation is dead air (conversations.dead_air_count); stored on each row with its figures. */
    DEAD_AIR_SECONDS: z.coerce.number().min(0).default(3),
    /** Retention the worker applies at start, in days (0 removes the TTL: keep everything); unset leaves the tables' TTL as it is. */
    CLICKHOUSE_TTL_DAYS: z.coerce.number().int().min(0).optional(),
    CLICKHOUSE_ROLLUP_TTL_DAYS: z.coerce.number().int().min(0).optional(),
    /** `npm run dev`: the local read-only SQL endpoint over the embedded ClickHouse (`voice-analytics query`). */
    DEV_SQL_PORT: port.default(8124),
    // `./run dev`: the local Alertmanager and Prometheus (scripts/stack/stack.sh), shown on the
    // overview page and in the printed URLs; unset = alerting not running.
    ALERTMANAGER_URL: httpUrl.optional(),
    PROMETHEUS_URL: httpUrl.optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** json (production), pretty (readable lines), auto: pretty when stdout is a terminal. */
    LOG_FORMAT: z.enum(['json', 'pretty', 'auto']).default('auto'),
  })
  .superRefine((env, context) => {
    // The embedded engine is one server in this process: a cluster is only reached over HTTP.
    if (env.CLICKHOUSE_CLUSTER && !env.CLICKHOUSE_URL)
      context.addIssue({
        code: 'custom',
        path: ['CLICKHOUSE_CLUSTER'],
        message: 'needs CLICKHOUSE_URL (a node of the cluster): the embedded engine is a single server',
      })
  })

export type Config = z.infer<typeof envSchema>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads the configuration from an environment; empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  )
  const parsed = envSchema.safeParse(present)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`)
}
