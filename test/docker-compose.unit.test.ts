import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { piiRedactions } from '../core/privacy/pii/pii-settings.ts'
import { parseWebhookSecrets } from '../core/secrets/webhook-secrets.ts'
import { loadConfig } from '../core/settings/env.ts'
import { alertSettingsFromEnv } from '../dashboards/src/alerting/alertmanager-config.ts'
import { ingressEnvironment, ingressEnvironmentPrefix, ingressNodeFlags } from '../services/ingress/main.ts'
import { workerEnvironment, workerNodeFlags } from '../services/worker/main.ts'

// No Docker engine on the build machines: docker-compose.yml, the Dockerfile and the provisioning
// files are linted here instead of run.
const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8')

type Scalar = string | number | boolean | null
interface Service {
  profiles?: string[]
  image?: string
  build?: string | { context?: string; dockerfile?: string }
  command?: string | string[]
  depends_on?: string[] | Record<string, { condition?: string }>
  healthcheck?: { test?: string | string[]; disable?: boolean }
  ports?: (string | number | { published?: string | number; target: number })[]
  volumes?: (string | { type?: string; source?: string; target: string })[]
  environment?: Record<string, Scalar> | string[]
  restart?: string
}
interface Compose {
  services: Record<string, Service>
  volumes?: Record<string, unknown>
}

// merge: compose honours YAML merge keys (<<: *anchor).
const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose
const services = Object.entries(compose.services)

/** The value `docker compose` uses when the shell and .env leave `${NAME:-default}` unset. */
const withDefaults = (value: Scalar) =>
  String(value ?? '').replace(
    /\$\{[A-Z0-9_]+(?::?-([^}]*))?\}/g,
    (_, fallback: string | undefined) => fallback ?? '',
  )

function environmentOf(service: Service): Record<string, string> {
  const entries = Array.isArray(service.environment)
    ? service.environment.map((entry) => [
        entry.slice(0, entry.indexOf('=')),
        entry.slice(entry.indexOf('=') + 1),
      ])
    : Object.entries(service.environment ?? {})
  return Object.fromEntries(entries.map(([name, value]) => [name, withDefaults(value as Scalar)]))
}

/** The tag of an image reference, or undefined; a registry port (host:5000/x) is not a tag. */
function imageTag(image: string): string | undefined {
  const name = image.split('@')[0]!
  const colon = name.lastIndexOf(':')
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : undefined
}

function dependenciesOf(service: Service): Record<string, string | undefined> {
  const dependsOn = service.depends_on ?? {}
  return Array.isArray(dependsOn)
    ? Object.fromEntries(dependsOn.map((name) => [name, undefined]))
    : Object.fromEntries(Object.entries(dependsOn).map(([name, options]) => [name, options.condition]))
}

interface PortMapping {
  hostIp?: string
  published?: number
  target: number
  protocol: string
}
function parsePort(port: string | number | { published?: string | number; target: number }): PortMapping {
  if (typeof port === 'object')
    return {
      published: port.published === undefined ? undefined : Number(port.published),
      target: port.target,
      protocol: 'tcp',
    }
  const [mapping, protocol = 'tcp'] = String(port).split('/') as [string, string?]
  const parts = mapping.split(':')
  const target = Number(parts.at(-1))
  if (parts.length === 1) return { target, protocol }
  return {
    hostIp: parts.length === 3 ? parts[0] : undefined,
    published: Number(parts.at(-2)),
    target,
    protocol,
  }
}

const isPort = (port: number | undefined) => Number.isInteger(port) && port! >= 1 && port! <= 65535
/** A job that runs once and exits (restart "no"), e.g. rendering config: others wait for it to finish. */
const runsOnce = (service: Service) => service.restart === 'no'
const hasHealthcheck = (service: Service | undefined) =>
  Boolean(service?.healthcheck?.test) && service?.healthcheck?.disable !== true
const healthcheckText = (service: Service) => [service.healthcheck?.test ?? []].flat().join(' ')

function bindMounts(service: Service): { source: string; target: string }[] {
  return (service.volumes ?? []).flatMap((volume) => {
    if (typeof volume === 'object')
      return volume.type === 'bind' && volume.source ? [{ source: volume.source, target: volume.target }] : []
    const [source = '', target = ''] = volume.split(':')
    return source.startsWith('.') || source.startsWith('/') ? [{ source, target }] : []
  })
}

function namedVolumes(service: Service): string[] {
  return (service.volumes ?? []).flatMap((volume) => {
    if (typeof volume === 'object') return volume.type === 'volume' && volume.source ? [volume.source] : []
    const [source = ''] = volume.split(':')
    return volume.includes(':') && !source.startsWith('.') && !source.startsWith('/') ? [source] : []
  })
}

function parseEnvFile(text: string): Record<string, string> {
  const lines = text.split('\n').filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
  return Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  )
}

/** The instructions of a Dockerfile, continuation lines joined, comments dropped. */
function dockerInstructions(text: string): { keyword: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/)
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') }
    })
}

function filesUnder(dir: string): string[] {
  const absolute = join(repoRoot, dir)
  if (!existsSync(absolute)) return []
  return readdirSync(absolute, { recursive: true, encoding: 'utf8' })
    .map((entry) => posix.join(dir, entry.split('\\').join('/')))
    .filter((path) => statSync(join(repoRoot, path)).isFile())
}

const exampleEnv = parseEnvFile(read('.env.example'))
// Settings of .env.example the containers need not be given: their defaults fit inside a container.
const defaultsFitContainers = new Set([
  'ERASURE_HMAC_KEY', // read by `forget` only, never by the ingress or the worker
  'KAFKA_RETENTION_HOURS', // 7 days fits a container as anywhere
  'KAFKA_CLIENT_ID',
  'CLICKHOUSE_DATA_DIR', // embedded engine only; the compose stack runs a ClickHouse server
  'INGRESS_HOST', // 0.0.0.0 already
  'INGRESS_BODY_LIMIT_BYTES',
  'INGRESS_PUBLISH_TIMEOUT_MS',
  'INGRESS_QUEUE_LIMIT_BYTES',
  'INGRESS_REQUEST_TIMEOUT_MS',
  'INGRESS_CONNECTION_TIMEOUT_MS',
  'WORKER_GROUP_ID',
  'WORKER_TOPIC', // the contract topic names
  'WORKER_DLQ_TOPIC',
  'WORKER_MAX_BYTES_PER_PARTITION',
  'WORKER_SESSION_TIMEOUT_MS',
  'WORKER_MAX_BATCH_AGE_MS',
  'WORKER_HOUR_ROLLUP_INTERVAL_MS',
  'WORKER_STALL_SECONDS',
  'CLICKHOUSE_TTL_DAYS', // keep everything unless the operator says otherwise
  'CLICKHOUSE_ROLLUP_TTL_DAYS',
  'DEV_SQL_PORT', // npm run dev only
  'ALERTMANAGER_URL', // ./run dev's overview page only
  'PROMETHEUS_URL',
  'PII_POLICY', // the ingress only: checked by its own test below
  'PII_HMAC_KEY',
  'CLICKHOUSE_CLUSTER', // one server; the cluster profile's worker sets it (checked below)
  // The assembler's: its defaults fit a container (the metrics port is set in its service).
  'ASSEMBLER_GROUP_ID',
  'ASSEMBLER_TOPIC',
  'ASSEMBLER_OUTPUT_TOPIC',
  'ASSEMBLER_DLQ_TOPIC',
  'ASSEMBLER_METRICS_PORT',
  'ASSEMBLER_ROOT_GRACE_MS',
  'ASSEMBLER_IDLE_SECONDS',
  'ASSEMBLER_LATE_WINDOW_SECONDS',
  'ASSEMBLER_RESTORE_SECONDS',
  'ASSEMBLER_MAX_SPANS',
  'ASSEMBLER_MAX_SPAN_MB',
  'ASSEMBLER_MAX_TRACES',
  'ASSEMBLER_SOURCE_MAPPINGS',
])

/** The texts of every `<tag>…</tag>` of a configuration file (the cluster's files are that simple). */
const xmlValues = (text: string, tag: string) =>
  [...text.replace(/<!--[\s\S]*?-->/g, '').matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map(
    (match) => match[1]!.trim(),
  )
const inProfile = (profile: string | undefined) =>
  services.filter(([, service]) => (service.profiles?.[0] ?? undefined) === profile).map(([name]) => name)

describe('docker-compose.yml', () => {
  it('has the whole pipeline: Kafka, a registry, ClickHouse, ingress, worker, Prometheus, Alertmanager, Grafana', () => {
    expect(inProfile(undefined).sort()).toEqual(
      [
        'alerting-config',
        'alertmanager',
        'assembler',
        'clickhouse',
        'grafana',
        'ingress',
        'kafka',
        'prometheus',
        'schema-registry',
        'worker',
      ].sort(),
    )
  })

  it('has a cluster profile: Keeper, two shards and a worker in cluster mode, and no other profile', () => {
    expect(inProfile('cluster').sort()).toEqual(
      ['clickhouse-keeper', 'clickhouse-shard1', 'clickhouse-shard2', 'worker-cluster'].sort(),
    )
    for (const [name, service] of services) expect(service.profiles ?? ['cluster'], name).toEqual(['cluster'])
  })

  it('pins every image to a tag other than latest, or builds it from the Dockerfile', () => {
    for (const [name, service] of services) {
      if (service.build !== undefined) {
        const build = typeof service.build === 'string' ? { context: service.build } : service.build
        const dockerfile = posix.join(build.context ?? '.', build.dockerfile ?? 'Dockerfile')
        expect(posix.normalize(dockerfile), `${name} builds ${dockerfile}`).toBe('Dockerfile')
        expect(existsSync(join(repoRoot, dockerfile)), `${name}: ${dockerfile} exists`).toBe(true)
        continue
      }
      expect(service.image, `${name} has an image`).toBeTypeOf('string')
      const tag = imageTag(service.image!)
      expect(tag, `${name}: ${service.image} has a tag`).toBeTruthy()
      expect(tag, `${name}: ${service.image} is pinned`).not.toBe('latest')
    }
  })

  it('starts each service only after its dependencies are healthy (or, run once, done)', () => {
    for (const [name, service] of services) {
      for (const [dependency, condition] of Object.entries(dependenciesOf(service))) {
        const target = compose.services[dependency]
        expect(target, `${name} depends on ${dependency}, which is a service`).toBeDefined()
        if (runsOnce(target!)) {
          expect(condition, `${name} waits for ${dependency} to finish`).toBe(
            'service_completed_successfully',
          )
          continue
        }
        expect(hasHealthcheck(target), `${dependency} (a dependency of ${name}) has a healthcheck`).toBe(true)
        expect(condition, `${name} waits for ${dependency} to be healthy`).toBe('service_healthy')
      }
    }
    expect(dependenciesOf(compose.services.alertmanager!)).toEqual({
      'alerting-config': 'service_completed_successfully',
    })
    expect(dependenciesOf(compose.services.prometheus!)).toEqual({ alertmanager: 'service_healthy' })
    expect(Object.keys(dependenciesOf(compose.services.worker!)).sort()).toEqual(
      ['clickhouse', 'kafka', 'schema-registry'].sort(),
    )
    expect(Object.keys(dependenciesOf(compose.services.ingress!)).sort()).toEqual(
      ['kafka', 'schema-registry'].sort(),
    )
  })

  it('gives every long-running service a healthcheck', () => {
    for (const [name, service] of services)
      if (!runsOnce(service)) expect(hasHealthcheck(service), `${name} has a healthcheck`).toBe(true)
    expect(services.filter(([, service]) => runsOnce(service)).map(([name]) => name)).toEqual([
      'alerting-config',
    ])
  })

  it('publishes valid ports, each host port once', () => {
    const published = new Map<string, string>()
    for (const [name, service] of services) {
      for (const port of service.ports ?? []) {
        const mapping = parsePort(port)
        expect(isPort(mapping.target), `${name}: container port of ${JSON.stringify(port)}`).toBe(true)
        if (mapping.published === undefined) continue
        expect(isPort(mapping.published), `${name}: host port of ${JSON.stringify(port)}`).toBe(true)
        const key = `${mapping.published}/${mapping.protocol}`
        expect(published.get(key), `host port ${key} of ${name} is free`).toBeUndefined()
        published.set(key, name)
      }
    }
    expect(published.size).toBeGreaterThanOrEqual(services.filter(([, service]) => !runsOnce(service)).length)
  })

  it('mounts only host paths that exist in the repository, and declared volumes', () => {
    let mounts = 0
    for (const [name, service] of services) {
      for (const { source } of bindMounts(service)) {
        mounts++
        expect(existsSync(join(repoRoot, source)), `${name} mounts ${source}, which exists`).toBe(true)
      }
      for (const volume of namedVolumes(service))
        expect(Object.keys(compose.volumes ?? {}), `${name} uses volume ${volume}`).toContain(volume)
    }
    expect(mounts).toBeGreaterThanOrEqual(4)
  })

  it('runs the ingress and the worker from the image with their entry files', () => {
    expect(compose.services.ingress!.command).toEqual([...ingressNodeFlags, 'services/ingress/main.ts'])
    const scripts = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts
    expect(scripts['start:ingress']).toBe(
      `${ingressEnvironmentPrefix} node ${ingressNodeFlags.join(' ')} services/ingress/main.ts`,
    )
    expect(environmentOf(compose.services.ingress!)).toMatchObject(ingressEnvironment)
    for (const name of ['worker', 'worker-cluster']) {
      expect(compose.services[name]!.command).toEqual([...workerNodeFlags, 'services/worker/main.ts'])
      expect(environmentOf(compose.services[name]!)).toMatchObject(workerEnvironment)
    }
  })

  it('gives the ingress and the worker every setting of .env.example whose default does not fit a container', () => {
    // ALERT_* are the alerting-config service's (next test).
    const needed = Object.keys(exampleEnv).filter(
      (name) => !defaultsFitContainers.has(name) && !name.startsWith('ALERT_'),
    )
    expect(needed).toEqual(expect.arrayContaining(['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'CLICKHOUSE_URL']))
    for (const name of ['ingress', 'worker', 'worker-cluster']) {
      const environment = environmentOf(compose.services[name]!)
      for (const variable of needed)
        expect(
          Object.keys(environment),
          `${name} sets ${variable} (or add it to defaultsFitContainers in this test)`,
        ).toContain(variable)
      const config = loadConfig(environment)
      expect(() => parseWebhookSecrets(config.WEBHOOK_SECRETS), `${name}: WEBHOOK_SECRETS`).not.toThrow()
      expect(parseWebhookSecrets(config.WEBHOOK_SECRETS).length).toBeGreaterThan(0)
    }
  })

  it('gives the alerting-config service every ALERT_* setting of .env.example, unset channels off', () => {
    const alerting = Object.keys(exampleEnv).filter((name) => name.startsWith('ALERT_'))
    expect(alerting).toEqual(
      expect.arrayContaining(['ALERT_WEBHOOK_URL', 'ALERT_SLACK_WEBHOOK_URL', 'ALERT_EMAIL_TO']),
    )
    const environment = environmentOf(compose.services['alerting-config']!)
    expect(Object.keys(environment).sort()).toEqual(alerting.sort())
    for (const channel of ['ALERT_WEBHOOK_URL', 'ALERT_SLACK_WEBHOOK_URL', 'ALERT_EMAIL_TO'])
      expect(environment[channel], channel).toBe('')
    // No secret reaches a service that does not need it.
    for (const name of ['ingress', 'worker', 'prometheus', 'grafana'])
      expect(
        Object.keys(environmentOf(compose.services[name]!)).filter((v) => v.startsWith('ALERT_')),
      ).toEqual([])
  })

  it("passes PII_POLICY and PII_HMAC_KEY from the operator's environment to the ingress, keeping everything when unset", () => {
    const raw = compose.services.ingress!.environment as Record<string, Scalar>
    expect(raw.PII_POLICY).toBe(`\${PII_POLICY:-}`)
    expect(raw.PII_HMAC_KEY).toBe(`\${PII_HMAC_KEY:-}`)
    const config = loadConfig(environmentOf(compose.services.ingress!))
    const sources = parseWebhookSecrets(config.WEBHOOK_SECRETS).map((secret) => secret.source)
    const redaction = piiRedactions(config, sources)
    for (const source of sources) expect(redaction(source), `${source} keeps everything`).toBeUndefined()
    // The key goes where it is used, nowhere else.
    for (const [name, service] of services)
      if (name !== 'ingress') expect(Object.keys(environmentOf(service)), name).not.toContain('PII_HMAC_KEY')
  })

  it('points the services at the compose servers, with matching ports and healthchecks', () => {
    const config = loadConfig(environmentOf(compose.services.worker!))
    for (const broker of config.KAFKA_BROKERS.split(',')) {
      const [host, port] = broker.split(':')
      expect(host).toBe('kafka')
      expect(environmentOf(compose.services.kafka!).KAFKA_ADVERTISED_LISTENERS).toContain(`//kafka:${port}`)
    }
    const registry = new URL(config.SCHEMA_REGISTRY_URL)
    expect(compose.services[registry.hostname], `${registry.hostname} is a service`).toBeDefined()
    if (compose.services[registry.hostname]!.image?.startsWith('apicurio/'))
      expect(registry.pathname).toBe('/apis/ccompat/v7')
    expect(healthcheckText(compose.services[registry.hostname]!)).toContain(
      `:${registry.port}${registry.pathname}`,
    )

    const clickhouseUrl = new URL(config.CLICKHOUSE_URL!)
    expect(clickhouseUrl.hostname).toBe('clickhouse')
    expect(clickhouseUrl.port).toBe('8123')
    const clickhouse = environmentOf(compose.services.clickhouse!)
    expect(clickhouse.CLICKHOUSE_USER).toBe(config.CLICKHOUSE_USER)
    expect(clickhouse.CLICKHOUSE_PASSWORD).toBe(config.CLICKHOUSE_PASSWORD)
    expect(clickhouse.CLICKHOUSE_DB).toBe(config.CLICKHOUSE_DATABASE)

    const ingress = loadConfig(environmentOf(compose.services.ingress!))
    expect(compose.services.ingress!.ports!.map((port) => parsePort(port).target)).toContain(
      ingress.INGRESS_PORT,
    )
    expect(healthcheckText(compose.services.ingress!)).toContain(`:${ingress.INGRESS_PORT}/healthz`)
    expect(compose.services.worker!.ports!.map((port) => parsePort(port).target)).toContain(
      config.WORKER_METRICS_PORT,
    )
    expect(healthcheckText(compose.services.worker!)).toContain(`:${config.WORKER_METRICS_PORT}/healthz`)
  })
})

describe('docker-compose.yml, profile cluster (deploy/clickhouse-cluster/)', () => {
  const cluster = read('deploy/clickhouse-cluster/cluster.xml')
  const keeper = read('deploy/clickhouse-cluster/keeper.xml')
  const worker = loadConfig(environmentOf(compose.services['worker-cluster']!))
  const shards = ['clickhouse-shard1', 'clickhouse-shard2']
  const mountOf = (service: string, target: string) =>
    bindMounts(compose.services[service]!).find((mount) => mount.target === target)?.source

  it('runs the worker as the other worker runs, in cluster mode, in a consumer group of its own', () => {
    expect(compose.services['worker-cluster']!.command).toEqual(compose.services.worker!.command)
    expect(compose.services['worker-cluster']!.build).toEqual(compose.services.worker!.build)
    expect(worker.CLICKHOUSE_CLUSTER).toBe('va_cluster')
    expect(worker.WORKER_GROUP_ID).not.toBe(
      loadConfig(environmentOf(compose.services.worker!)).WORKER_GROUP_ID,
    )
    const url = new URL(worker.CLICKHOUSE_URL!)
    expect(shards).toContain(url.hostname)
    expect(url.port).toBe('8123')
    expect(healthcheckText(compose.services[url.hostname]!)).toContain(':8123/ping')
    expect(Object.keys(dependenciesOf(compose.services['worker-cluster']!)).sort()).toEqual(
      ['kafka', 'schema-registry', ...shards].sort(),
    )
  })

  it('defines the cluster the worker names: every shard once, its native port, internal replication', () => {
    const definition = new RegExp(
      `<remote_servers>\\s*<${worker.CLICKHOUSE_CLUSTER}>([\\s\\S]*)</${worker.CLICKHOUSE_CLUSTER}>`,
    ).exec(cluster)
    expect(definition, `remote_servers defines ${worker.CLICKHOUSE_CLUSTER}`).not.toBeNull()
    expect(xmlValues(definition![1]!, 'host')).toEqual(shards)
    expect(xmlValues(definition![1]!, 'port')).toEqual(['9000', '9000'])
    expect(xmlValues(definition![1]!, 'internal_replication')).toEqual(['true', 'true'])
    // Shards reach each other as the user the image creates from the same variables.
    for (const variable of ['CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD'])
      expect(cluster.match(new RegExp(`from_env="${variable}"`, 'g'))?.length).toBe(shards.length)
    for (const shard of shards) {
      const environment = environmentOf(compose.services[shard]!)
      expect(environment.CLICKHOUSE_USER).toBe(worker.CLICKHOUSE_USER)
      expect(environment.CLICKHOUSE_PASSWORD).toBe(worker.CLICKHOUSE_PASSWORD)
    }
  })

  it('gives each shard the cluster file, the query profile and macros of its own: distinct shard and replica names', () => {
    const macros = shards.map((shard) => {
      expect(mountOf(shard, '/etc/clickhouse-server/config.d/cluster.xml')).toBe(
        './deploy/clickhouse-cluster/cluster.xml',
      )
      const file = mountOf(shard, '/etc/clickhouse-server/config.d/macros.xml')
      expect(file, `${shard} mounts its macros`).toBeDefined()
      const text = read(file!)
      expect(mountOf(shard, '/etc/clickhouse-server/users.d/query-profile.xml')).toBe(
        './deploy/clickhouse-cluster/query-profile.xml',
      )
      expect(xmlValues(text, 'replica'), file).toEqual([shard])
      return xmlValues(text, 'shard')[0]
    })
    expect(new Set(macros).size).toBe(shards.length)
  })

  it('points every node at the Keeper the profile runs, on the port its healthcheck asks', () => {
    expect(xmlValues(cluster, 'host').at(-1)).toBe('clickhouse-keeper')
    const zookeeper = /<zookeeper>([\s\S]*)<\/zookeeper>/.exec(cluster)![1]!
    const port = xmlValues(keeper, 'tcp_port')[0]
    expect(xmlValues(zookeeper, 'host')).toEqual(['clickhouse-keeper'])
    expect(xmlValues(zookeeper, 'port')).toEqual([port])
    expect(xmlValues(keeper, 'hostname')).toEqual(['clickhouse-keeper'])
    expect(healthcheckText(compose.services['clickhouse-keeper']!)).toContain(`/dev/tcp/127.0.0.1/${port}`)
    expect(xmlValues(keeper, 'four_letter_word_white_list')[0]).toContain('ruok')
    const entrypoint = (compose.services['clickhouse-keeper'] as Service & { entrypoint?: string[] })
      .entrypoint
    const configFile = entrypoint?.find((argument) => argument.startsWith('--config-file='))?.split('=')[1]
    expect(mountOf('clickhouse-keeper', configFile!)).toBe('./deploy/clickhouse-cluster/keeper.xml')
    for (const shard of shards)
      expect(dependenciesOf(compose.services[shard]!)).toEqual({ 'clickhouse-keeper': 'service_healthy' })
  })
})

describe('.env.example', () => {
  it('lists every setting of core/settings/env.ts, each with a valid value', () => {
    const defaults = loadConfig({})
    expect(Object.keys(exampleEnv)).toEqual(expect.arrayContaining(Object.keys(defaults)))
    expect(Object.keys(exampleEnv)).toContain('CLICKHOUSE_URL')
    const fromExample = loadConfig(exampleEnv)
    for (const [name, value] of Object.entries(exampleEnv))
      if (value !== '' && !name.startsWith('ALERT_'))
        expect(String(fromExample[name as keyof typeof fromExample]), name).toBe(value)
    // ALERT_* are read by the alerting config's renderer, which checks them the same way.
    const alerting = alertSettingsFromEnv(exampleEnv)
    expect(alerting.timing).toEqual({ groupWait: '20s', groupInterval: '5m', repeatInterval: '4h' })
    expect(alerting.overviewUrl).toBe(exampleEnv.ALERT_OVERVIEW_URL)
  })
})

describe('Dockerfile', () => {
  const instructions = dockerInstructions(read('Dockerfile'))
  const stages = instructions.reduce<{ keyword: string; args: string }[][]>((all, instruction) => {
    if (instruction.keyword === 'FROM') all.push([])
    all.at(-1)?.push(instruction)
    return all
  }, [])
  const finalStage = stages.at(-1) ?? []

  it('builds in two or more stages from pinned images', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    const stageNames: string[] = []
    for (const stage of stages) {
      const [image = '', as, name] = stage[0]!.args.split(/\s+/)
      if (!stageNames.includes(image)) {
        expect(imageTag(image), `FROM ${image} has a tag`).toBeTruthy()
        expect(imageTag(image), `FROM ${image} is pinned`).not.toBe('latest')
      }
      if (as?.toUpperCase() === 'AS' && name) stageNames.push(name)
    }
  })

  it('runs as a user that is not root', () => {
    const users = finalStage.filter((instruction) => instruction.keyword === 'USER').map(({ args }) => args)
    expect(users.length).toBeGreaterThan(0)
    expect(['root', '0', '0:0', 'root:root']).not.toContain(users.at(-1))
  })

  it('installs production dependencies only and starts node on an entry file', () => {
    const runs = instructions.filter((instruction) => instruction.keyword === 'RUN').map(({ args }) => args)
    expect(runs.some((run) => /npm install\b.*--omit=dev/.test(run))).toBe(true)
    const copies = finalStage.filter((instruction) => instruction.keyword === 'COPY').map(({ args }) => args)
    for (const path of ['node_modules', 'services', 'schemas', 'package.json'])
      expect(
        copies.some((copy) => copy.includes(path)),
        `final stage copies ${path}`,
      ).toBe(true)
    const last = (keyword: string) =>
      finalStage.filter((instruction) => instruction.keyword === keyword).at(-1)?.args
    expect(JSON.parse(last('ENTRYPOINT') ?? 'null')).toEqual(['node'])
    // The image's default command is the ingress as every other start path runs it.
    expect(JSON.parse(last('CMD') ?? 'null')).toEqual([...ingressNodeFlags, 'services/ingress/main.ts'])
  })

  it('keeps local state and secrets out of the build context (.dockerignore)', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.stack', 'data', '.git', '.env']))
  })
})

describe('Prometheus and Grafana provisioning', () => {
  it('Prometheus scrapes the ingress, the worker and the assembler and loads its rules folder', () => {
    const prometheus = parse(read('dashboards/prometheus/prometheus.yml')) as {
      rule_files: string[]
      scrape_configs: { job_name: string; metrics_path?: string; static_configs: { targets: string[] }[] }[]
    }
    const config = loadConfig(environmentOf(compose.services.worker!))
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((s) => s.targets))
    expect(targets.sort()).toEqual(
      [
        `ingress:${config.INGRESS_PORT}`,
        `worker:${config.WORKER_METRICS_PORT}`,
        `assembler:${config.ASSEMBLER_METRICS_PORT}`,
      ].sort(),
    )
    expect(prometheus.rule_files).toEqual(['rules/*.yml'])
    const mounts = bindMounts(compose.services.prometheus!)
    expect(mounts).toContainEqual({
      source: './dashboards/prometheus/rules',
      target: '/etc/prometheus/rules',
    })
    for (const file of filesUnder('dashboards/prometheus/rules').filter((path) => path.endsWith('.yml')))
      expect((parse(read(file)) as { groups?: unknown }).groups, `${file} has rule groups`).toBeInstanceOf(
        Array,
      )
  })

  it('Grafana provisions the Prometheus and ClickHouse datasources of the compose stack', () => {
    const { datasources } = parse(read('dashboards/grafana/provisioning/datasources/datasources.yaml')) as {
      datasources: { uid: string; type: string; url?: string; jsonData?: Record<string, unknown> }[]
    }
    const byUid = Object.fromEntries(datasources.map((datasource) => [datasource.uid, datasource]))
    expect(byUid.prometheus?.type).toBe('prometheus')
    expect(compose.services[new URL(byUid.prometheus!.url!).hostname]).toBe(compose.services.prometheus)
    expect(byUid.clickhouse?.type).toBe('grafana-clickhouse-datasource')
    expect(byUid.clickhouse?.jsonData).toMatchObject({
      host: 'clickhouse',
      port: 8123,
      protocol: 'http',
      defaultDatabase: loadConfig(environmentOf(compose.services.worker!)).CLICKHOUSE_DATABASE,
    })
    expect(environmentOf(compose.services.grafana!).GF_PLUGINS_PREINSTALL_SYNC).toContain(
      'grafana-clickhouse-datasource',
    )
  })

  it('Grafana loads dashboards from the folder compose mounts, and every provisioning file parses', () => {
    const { providers } = parse(read('dashboards/grafana/provisioning/dashboards/dashboards.yaml')) as {
      providers: { type: string; options: { path: string } }[]
    }
    const dashboardsMount = bindMounts(compose.services.grafana!).find(
      ({ source }) => source === './dashboards/grafana/dashboards',
    )
    expect(providers.map((provider) => provider.options.path)).toContain(dashboardsMount?.target)
    const provisioning = filesUnder('dashboards/grafana/provisioning').filter((path) => /\.ya?ml$/.test(path))
    expect(provisioning.length).toBeGreaterThanOrEqual(2)
    for (const file of provisioning)
      expect((parse(read(file)) as { apiVersion?: number }).apiVersion, file).toBe(1)
    for (const file of filesUnder('dashboards/grafana/dashboards').filter((path) => path.endsWith('.json')))
      expect(() => JSON.parse(read(file)), `${file} is JSON`).not.toThrow()
  })
})
