#!/usr/bin/env bash
# The real local stack without Docker: Apache Kafka (KRaft), Apicurio Registry and Keycloak
# as plain Java processes on 127.0.0.1, and Prometheus + Alertmanager from Debian's packages
# (alerting for `./run dev`). ClickHouse is the embedded chDB engine (nothing to start).
#
#   stack.sh up [service...]     start what is not running yet, wait until ready (idempotent)
#   stack.sh down [service...]   stop what this script started (by PID), nothing else
#   stack.sh status              what runs, where, and its log file
#   stack.sh fetch [service...]  only download into the cache
# Services: kafka registry keycloak (default: these three, or $STACK_SERVICES), prometheus
# alertmanager (on request: `./run dev` starts them).
# Settings (environment): KAFKA_PORT 9092, KAFKA_CONTROLLER_PORT 9093, REGISTRY_PORT 8081,
# KEYCLOAK_PORT 8180, PROMETHEUS_PORT 9090, ALERTMANAGER_PORT 9095 (9093 is Kafka's controller),
# INGRESS_PORT 8080, WORKER_METRICS_PORT 9464 and ASSEMBLER_METRICS_PORT 9466 (what Prometheus scrapes), ALERT_* (receivers,
# docs/alerting.md), KAFKA_VERSION 3.9.1, APICURIO_VERSION 3.0.9, KEYCLOAK_VERSION 26.7.3,
# VA_CACHE_DIR (downloads, default ~/.cache/voice-analytics), VA_STACK_DIR (pids, logs, data;
# default <repo>/.stack). After `up`, $VA_STACK_DIR/stack.env holds the URLs for the tests.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${VA_CACHE_DIR:-$HOME/.cache/voice-analytics}"
state="${VA_STACK_DIR:-$repo/.stack}"

KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
REGISTRY_PORT="${REGISTRY_PORT:-8081}"
KEYCLOAK_PORT="${KEYCLOAK_PORT:-8180}"
KEYCLOAK_MANAGEMENT_PORT="${KEYCLOAK_MANAGEMENT_PORT:-9180}"
PROMETHEUS_PORT="${PROMETHEUS_PORT:-9090}"
ALERTMANAGER_PORT="${ALERTMANAGER_PORT:-9095}"
INGRESS_PORT="${INGRESS_PORT:-8080}"
WORKER_METRICS_PORT="${WORKER_METRICS_PORT:-9464}"
ASSEMBLER_METRICS_PORT="${ASSEMBLER_METRICS_PORT:-9466}"
KAFKA_VERSION="${KAFKA_VERSION:-3.9.1}"
# 3.0.x runs on Java 17; 3.1+ needs Java 21 (set REGISTRY_JAVA to a java 21+ binary for those).
APICURIO_VERSION="${APICURIO_VERSION:-3.0.9}"
REGISTRY_JAVA="${REGISTRY_JAVA:-java}"
KEYCLOAK_VERSION="${KEYCLOAK_VERSION:-26.7.3}"
KEYCLOAK_REALM="${KEYCLOAK_REALM:-voice-analytics}"
READY_TIMEOUT_SECONDS="${READY_TIMEOUT_SECONDS:-300}"

kafka_home="$cache/kafka-$KAFKA_VERSION"
apicurio_home="$cache/apicurio-registry-$APICURIO_VERSION"
keycloak_home="$cache/keycloak-$KEYCLOAK_VERSION"
realm_file="$repo/test/stack/keycloak-realm.json"

log() { printf 'stack: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

pid_file() { echo "$state/$1.pid"; }
log_file() { echo "$state/$1.log"; }
running_pid() {
  local f
  f="$(pid_file "$1")"
  [ -f "$f" ] || return 1
  local pid
  pid="$(cat "$f")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- downloads (Maven Central through mvn, cached outside the repo) ----
fetch_kafka() {
  [ -d "$kafka_home/lib" ] && [ -n "$(ls "$kafka_home/lib" 2>/dev/null)" ] && return 0
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $kafka_home/lib"
  # Kafka 3.x logs through log4j 1 (reload4j), 4.x through log4j 2: a pom for each.
  local pom="$here/kafka-pom.xml"
  [ "${KAFKA_VERSION%%.*}" -ge 4 ] && pom="$here/kafka4-pom.xml"
  mvn -q -B -f "$pom" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$kafka_home/lib.partial"
  mv "$kafka_home/lib.partial" "$kafka_home/lib"
}
fetch_artifact() { # group:artifact:version:type[:classifier] -> file in $cache/downloads
  mvn -q -B dependency:copy -Dartifact="$1" -DoutputDirectory="$cache/downloads" >&2
}
registry_jar() { # 3.0.x ships a runner jar, later versions a quarkus-run.jar
  ls "$apicurio_home"/quarkus-run.jar "$apicurio_home"/*-runner.jar 2>/dev/null | head -n 1
}
fetch_registry() {
  [ -n "$(registry_jar)" ] && return 0
  log "fetching Apicurio Registry $APICURIO_VERSION from Maven Central"
  fetch_artifact "io.apicurio:apicurio-registry-app:$APICURIO_VERSION:tar.gz:all"
  rm -rf "$apicurio_home.partial" && mkdir -p "$apicurio_home.partial"
  tar xzf "$cache/downloads/apicurio-registry-app-$APICURIO_VERSION-all.tar.gz" -C "$apicurio_home.partial"
  mv "$apicurio_home.partial" "$apicurio_home"
}
fetch_keycloak() {
  [ -x "$keycloak_home/bin/kc.sh" ] && return 0
  log "fetching Keycloak $KEYCLOAK_VERSION from Maven Central"
  fetch_artifact "org.keycloak:keycloak-quarkus-dist:$KEYCLOAK_VERSION:zip"
  rm -rf "$cache/keycloak-unpack" && mkdir -p "$cache/keycloak-unpack"
  unzip -q "$cache/downloads/keycloak-quarkus-dist-$KEYCLOAK_VERSION.zip" -d "$cache/keycloak-unpack"
  mv "$cache/keycloak-unpack/keycloak-$KEYCLOAK_VERSION" "$keycloak_home"
  rm -rf "$cache/keycloak-unpack"
}

# Prometheus and Alertmanager come from Debian packages (./run dev installs them as root), not
# from a download: "fetching" them only checks they are there.
binary_of() { # first of the names found on PATH
  local name
  for name in "$@"; do command -v "$name" 2>/dev/null && return 0; done
  return 1
}
fetch_prometheus() {
  binary_of prometheus >/dev/null || die "prometheus not found: sudo apt-get install -y prometheus"
}
fetch_alertmanager() {
  binary_of prometheus-alertmanager alertmanager >/dev/null ||
    die "alertmanager not found: sudo apt-get install -y prometheus-alertmanager"
}

# ---- starting: each service runs in its own process group so `down` stops all of it ----
launch() { # name command...
  local name="$1"
  shift
  set -m
  nohup "$@" >"$(log_file "$name")" 2>&1 </dev/null &
  echo $! >"$(pid_file "$name")"
  set +m
}
wait_ready() { # name check-command...
  local name="$1" deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
  shift
  until "$@"; do
    if ! running_pid "$name" >/dev/null; then
      tail -n 40 "$(log_file "$name")" >&2 || true
      die "$name exited while starting; log: $(log_file "$name")"
    fi
    [ "$SECONDS" -lt "$deadline" ] || die "$name not ready after ${READY_TIMEOUT_SECONDS}s; log: $(log_file "$name")"
    sleep 1
  done
  log "$name ready"
}
http_ok() { curl -fsS -o /dev/null --max-time 5 "$1" 2>/dev/null; }

start_kafka() {
  local dir="$state/kafka"
  mkdir -p "$dir"
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=3
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
message.max.bytes=20971520
replica.fetch.max.bytes=20971520
# A development broker must not fill the disk (runs of the benchmarks and tests add topics and
# gigabytes): a partition keeps its newest ~1 GiB; older segments of 128 MiB are deleted.
log.retention.bytes=1073741824
log.segment.bytes=134217728
EOF
  local java_opts=(-Xms256m -Xmx768m)
  if [ "${KAFKA_VERSION%%.*}" -ge 4 ]; then
    cat >"$dir/log4j2.properties" <<'EOF'
rootLogger.level=WARN
rootLogger.appenderRef.stdout.ref=STDOUT
appender.stdout.type=Console
appender.stdout.name=STDOUT
appender.stdout.layout.type=PatternLayout
appender.stdout.layout.pattern=[%d] %p %m (%c)%n
logger.raft.name=kafka.server.KafkaRaftServer
logger.raft.level=INFO
EOF
    java_opts+=(-Dlog4j2.configurationFile="$dir/log4j2.properties")
  else
    cat >"$dir/log4j.properties" <<'EOF'
log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.kafka.server.KafkaRaftServer=INFO
EOF
    java_opts+=(-Dlog4j.configuration="file:$dir/log4j.properties")
  fi
  if [ ! -f "$dir/data/meta.properties" ]; then
    java "${java_opts[@]}" -cp "$kafka_home/lib/*" kafka.tools.StorageTool format \
      -t "$(cat /proc/sys/kernel/random/uuid | tr -d - | head -c 22)" -c "$dir/server.properties" >/dev/null
  fi
  launch kafka java "${java_opts[@]}" -cp "$kafka_home/lib/*" kafka.Kafka "$dir/server.properties"
  wait_ready kafka port_open "$KAFKA_PORT"
}

start_registry() {
  # Schemas live in a Kafka topic (kafkasql), so they last exactly as long as the Kafka data
  # whose messages name their ids: an in-memory registry forgot them at every restart, and the
  # worker then sent every older message to the dead-letter topic as "unknown schema".
  port_open "$KAFKA_PORT" || die "the registry keeps its schemas in Kafka: start kafka first"
  launch registry "$REGISTRY_JAVA" -Xms128m -Xmx512m \
    -Dquarkus.http.port="$REGISTRY_PORT" -Dquarkus.http.host=127.0.0.1 \
    -Dapicurio.storage.kind=kafkasql -Dapicurio.kafkasql.bootstrap.servers="127.0.0.1:$KAFKA_PORT" \
    -jar "$(registry_jar)"
  wait_ready registry http_ok "http://127.0.0.1:$REGISTRY_PORT/health/ready"
  wait_ready registry http_ok "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7/subjects"
}

start_keycloak() {
  # A fresh dev database each start, so the realm file in the repo is what the tests get.
  rm -rf "$keycloak_home/data/h2" "$keycloak_home/data/import"
  mkdir -p "$keycloak_home/data/import"
  # Keycloak only imports a file named <realm>-realm.json.
  if [ -f "$realm_file" ]; then cp "$realm_file" "$keycloak_home/data/import/$KEYCLOAK_REALM-realm.json"; fi
  KC_BOOTSTRAP_ADMIN_USERNAME="${KEYCLOAK_ADMIN_USER:-admin}" \
    KC_BOOTSTRAP_ADMIN_PASSWORD="${KEYCLOAK_ADMIN_PASSWORD:-admin}" \
    JAVA_OPTS_KC_HEAP="-Xms256m -Xmx768m" \
    launch keycloak "$keycloak_home/bin/kc.sh" start-dev --import-realm \
    --http-host=127.0.0.1 --http-port="$KEYCLOAK_PORT" \
    --http-management-port="$KEYCLOAK_MANAGEMENT_PORT" --hostname-strict=false
  local probe="http://127.0.0.1:$KEYCLOAK_PORT/realms/master/.well-known/openid-configuration"
  [ -f "$realm_file" ] && probe="http://127.0.0.1:$KEYCLOAK_PORT/realms/$KEYCLOAK_REALM/.well-known/openid-configuration"
  wait_ready keycloak http_ok "$probe"
}

start_prometheus() {
  # The compose config's settings (15 s scrape and evaluation: the shipped defaults) and the
  # repository's rules, scraping the ingress, worker and assembler of `./run dev` on this machine.
  local dir="$state/prometheus"
  mkdir -p "$dir/data"
  cat >"$dir/prometheus.yml" <<EOF
# Written by scripts/stack/stack.sh for the local stack; compose uses dashboards/prometheus/prometheus.yml.
global:
  scrape_interval: 15s
  evaluation_interval: 15s
rule_files:
  - $repo/dashboards/prometheus/rules/*.yml
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["127.0.0.1:$ALERTMANAGER_PORT"]
scrape_configs:
  - job_name: ingress
    static_configs:
      - targets: ["127.0.0.1:$INGRESS_PORT"]
  - job_name: worker
    static_configs:
      - targets: ["127.0.0.1:$WORKER_METRICS_PORT"]
  - job_name: assembler
    static_configs:
      - targets: ["127.0.0.1:$ASSEMBLER_METRICS_PORT"]
EOF
  launch prometheus "$(binary_of prometheus)" --config.file="$dir/prometheus.yml" \
    --storage.tsdb.path="$dir/data" --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" --web.enable-lifecycle
  wait_ready prometheus http_ok "http://127.0.0.1:$PROMETHEUS_PORT/-/ready"
}

start_alertmanager() {
  # The config holds the receivers' secrets: rendered from ALERT_* into a 0600 file, never printed.
  local dir="$state/alertmanager"
  mkdir -p "$dir/data"
  (
    cd "$repo"
    VA_QUIET=1 . scripts/ensure-node.sh
    node dashboards/src/alerting/render-alerting-config.ts --alertmanager "$dir" >&2
  ) || die "cannot render the Alertmanager config (see above)"
  # No cluster: one local Alertmanager (its gossip port would be 9094 otherwise).
  launch alertmanager "$(binary_of prometheus-alertmanager alertmanager)" \
    --config.file="$dir/alertmanager.yml" --storage.path="$dir/data" \
    --web.listen-address="127.0.0.1:$ALERTMANAGER_PORT" --cluster.listen-address=
  wait_ready alertmanager http_ok "http://127.0.0.1:$ALERTMANAGER_PORT/-/ready"
}

service_port() {
  case "$1" in
    kafka) echo "$KAFKA_PORT" ;;
    registry) echo "$REGISTRY_PORT" ;;
    keycloak) echo "$KEYCLOAK_PORT" ;;
    prometheus) echo "$PROMETHEUS_PORT" ;;
    alertmanager) echo "$ALERTMANAGER_PORT" ;;
    *) die "unknown service '$1' (kafka, registry, keycloak, prometheus, alertmanager)" ;;
  esac
}

up_one() {
  local name="$1" port
  port="$(service_port "$name")"
  if pid="$(running_pid "$name")"; then
    log "$name already running (pid $pid, port $port)"
    return 0
  fi
  port_open "$port" && die "port $port is taken by a process this script did not start; set ${name^^}_PORT"
  "fetch_$name"
  log "starting $name on 127.0.0.1:$port (log: $(log_file "$name"))"
  "start_$name"
}

write_env() {
  cat >"$state/stack.env" <<EOF
KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
SCHEMA_REGISTRY_URL=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7
KEYCLOAK_URL=http://127.0.0.1:$KEYCLOAK_PORT
EOF
  # Only what runs: `./run dev` and its overview page look for an Alertmanager here.
  if running_pid prometheus >/dev/null; then echo "PROMETHEUS_URL=http://127.0.0.1:$PROMETHEUS_PORT" >>"$state/stack.env"; fi
  if running_pid alertmanager >/dev/null; then echo "ALERTMANAGER_URL=http://127.0.0.1:$ALERTMANAGER_PORT" >>"$state/stack.env"; fi
}

down_one() {
  local name="$1" pid
  if ! pid="$(running_pid "$name")"; then
    rm -f "$(pid_file "$name")"
    log "$name not running"
    return 0
  fi
  log "stopping $name (pid $pid)"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not stop in 30s; killing it"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$(pid_file "$name")"
}

status_one() {
  local name="$1" pid
  if pid="$(running_pid "$name")"; then
    printf '%-9s running  pid %-7s 127.0.0.1:%-5s log %s\n' "$name" "$pid" "$(service_port "$name")" "$(log_file "$name")"
  else
    printf '%-9s stopped\n' "$name"
    return 1
  fi
}

command="${1:-status}"
shift || true
services=("$@")
[ ${#services[@]} -gt 0 ] || read -r -a services <<<"${STACK_SERVICES:-kafka registry keycloak}"
mkdir -p "$state" "$cache"

case "$command" in
  fetch) for s in "${services[@]}"; do service_port "$s" >/dev/null && "fetch_$s"; done ;;
  up)
    if [[ " ${services[*]} " =~ \ (kafka|registry|keycloak)\  ]]; then
      command -v java >/dev/null || die "java not found: install a Java 17+ JDK (Debian: openjdk-17-jre-headless)"
      command -v mvn >/dev/null || die "mvn not found: install Maven (Debian: maven) to fetch the servers from Maven Central"
    fi
    for s in "${services[@]}"; do up_one "$s"; done
    write_env
    log "ready; URLs in $state/stack.env"
    ;;
  down)
    # Stop in reverse order so consumers of Kafka go before it.
    for ((i = ${#services[@]} - 1; i >= 0; i--)); do down_one "${services[$i]}"; done
    ;;
  status)
    rc=0
    for s in "${services[@]}"; do status_one "$s" || rc=3; done
    echo "clickhouse embedded (chDB) unless CLICKHOUSE_URL is set"
    exit "$rc"
    ;;
  *) die "usage: stack.sh up|down|status|fetch [kafka registry keycloak prometheus alertmanager]" ;;
esac
