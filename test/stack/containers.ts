import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { StartedTestContainer } from 'testcontainers'
import { readStackEnv } from './servers.ts'

// Vitest globalSetup for machines with a Docker engine and no local stack: starts, through
// testcontainers, each server that neither a TEST_* variable nor .stack/stack.env provides, and
// sets its TEST_* variable (test workers inherit it). Without a Docker engine it does nothing, and
// test/stack/servers.ts fails loudly when a test asks for a server nobody provided.
// Versions are those of scripts/stack/stack.sh.
type Testcontainers = typeof import('testcontainers')

interface Server {
  variable: 'KAFKA_BROKERS' | 'SCHEMA_REGISTRY_URL' | 'KEYCLOAK_URL'
  start: (tc: Testcontainers) => Promise<{ container: StartedTestContainer; url: string }>
}

const STARTUP_TIMEOUT_MS = 180_000
const realmFile = fileURLToPath(new URL('./keycloak-realm.json', import.meta.url))

const kafka: Server = {
  variable: 'KAFKA_BROKERS',
  async start({ GenericContainer, Wait, BoundPorts, getContainerRuntimeClient, waitForContainer }) {
    // Kafka must advertise the host's mapped port, known only once the container runs: the
    // entrypoint waits for that address in a file, then starts the broker.
    const listenersFile = '/tmp/advertised-listeners'
    const container = await new GenericContainer('apache/kafka:3.9.1')
      .withExposedPorts(9092)
      .withEnvironment({
        CLUSTER_ID: 'dm9pY2UtYW5hbHl0aWNzMQ',
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: 'HOST://:9092,BROKER://:9094,CONTROLLER://:9093',
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'HOST:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
        KAFKA_NUM_PARTITIONS: '3',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_MESSAGE_MAX_BYTES: '20971520',
        KAFKA_REPLICA_FETCH_MAX_BYTES: '20971520',
      })
      .withEntrypoint(['sh', '-c'])
      .withCommand([
        `echo waiting for listeners; while [ ! -s ${listenersFile} ]; do sleep 0.1; done; ` +
          `export KAFKA_ADVERTISED_LISTENERS="$(cat ${listenersFile})"; exec /etc/kafka/docker/run`,
      ])
      .withWaitStrategy(Wait.forLogMessage('waiting for listeners'))
      .start()
    const brokers = `${container.getHost()}:${container.getMappedPort(9092)}`
    await container.copyContentToContainer([
      { content: `HOST://${brokers},BROKER://localhost:9094`, target: listenersFile, mode: 0o644 },
    ])
    const client = await getContainerRuntimeClient()
    await waitForContainer(
      client,
      client.container.getById(container.getId()),
      Wait.forLogMessage(/Kafka Server started/).withStartupTimeout(STARTUP_TIMEOUT_MS),
      new BoundPorts(),
    )
    return { container, url: brokers }
  },
}

const schemaRegistry: Server = {
  variable: 'SCHEMA_REGISTRY_URL',
  async start({ GenericContainer, Wait }) {
    // In-memory storage, like the local stack: a fresh registry per run.
    const container = await new GenericContainer('apicurio/apicurio-registry:3.0.9')
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080).forStatusCode(200))
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
      .start()
    return {
      container,
      url: `http://${container.getHost()}:${container.getMappedPort(8080)}/apis/ccompat/v7`,
    }
  },
}

const keycloak: Server = {
  variable: 'KEYCLOAK_URL',
  async start({ GenericContainer, Wait }) {
    const realm = existsSync(realmFile)
      ? (JSON.parse(readFileSync(realmFile, 'utf8')) as { realm: string }).realm
      : undefined
    let image = new GenericContainer('quay.io/keycloak/keycloak:26.7.3')
      .withExposedPorts(8080)
      .withEnvironment({ KC_BOOTSTRAP_ADMIN_USERNAME: 'admin', KC_BOOTSTRAP_ADMIN_PASSWORD: 'admin' })
      .withCommand(['start-dev', '--import-realm'])
      .withWaitStrategy(
        Wait.forHttp(`/realms/${realm ?? 'master'}/.well-known/openid-configuration`, 8080).forStatusCode(
          200,
        ),
      )
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
    // Keycloak imports only a file named <realm>-realm.json.
    if (realm)
      image = image.withCopyFilesToContainer([
        { source: realmFile, target: `/opt/keycloak/data/import/${realm}-realm.json`, mode: 0o644 },
      ])
    const container = await image.start()
    return { container, url: `http://${container.getHost()}:${container.getMappedPort(8080)}` }
  },
}

const provided = (variable: Server['variable']) =>
  process.env[`TEST_${variable}`] !== undefined || readStackEnv()[variable] !== undefined

async function dockerEngine(): Promise<Testcontainers | undefined> {
  const tc = await import('testcontainers')
  try {
    await tc.getContainerRuntimeClient()
    return tc
  } catch {
    return undefined
  }
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const wanted = [kafka, schemaRegistry, keycloak].filter((server) => !provided(server.variable))
  if (wanted.length === 0) return undefined
  const tc = await dockerEngine()
  if (!tc) return undefined

  const results = await Promise.allSettled(wanted.map((server) => server.start(tc)))
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
  const stopAll = async () => {
    await Promise.allSettled(started.map(({ container }) => container.stop()))
  }
  const failed = results.find((result) => result.status === 'rejected')
  if (failed) {
    await stopAll()
    throw failed.reason
  }

  // Nothing failed, so started[i] belongs to wanted[i].
  for (const [index, server] of wanted.entries()) {
    const { url } = started[index]!
    process.env[`TEST_${server.variable}`] = url
    process.stderr.write(`testcontainers: TEST_${server.variable}=${url}\n`)
  }
  return async () => {
    for (const server of wanted) delete process.env[`TEST_${server.variable}`]
    await stopAll()
  }
}
