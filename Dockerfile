# syntax=docker/dockerfile:1
# One image for the ingress and the worker (docker-compose.yml picks the entry file).
# Node 24 runs the TypeScript sources directly (type stripping): there is no build step.
# Debian slim rather than Alpine: chdb's prebuilt library needs glibc.

FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: the lock file lacks the other platforms' optional builds of chdb and
# biome (the registry it was made against did not serve them); install keeps the locked versions.
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# The code stays owned by root, so the service cannot change it; only data/ (embedded
# ClickHouse, used when CLICKHOUSE_URL is unset) is writable by the runtime user.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY schemas ./schemas
COPY core ./core
COPY services ./services
# The alerting-config service of docker-compose.yml renders Alertmanager's and Grafana's contact points.
COPY dashboards/src/alerting ./dashboards/src/alerting
RUN mkdir -p data && chown node:node data
USER node
EXPOSE 8080 9464
ENTRYPOINT ["node"]
# The ingress as every start path runs it (ingressNodeFlags, services/ingress/main.ts): peak RSS under load.
# MALLOC_ARENA_MAX=2 (and the worker's JE_MALLOC_CONF) are set by compose on each service, not the image.
CMD ["--max-semi-space-size=8", "--max-old-space-size=1536", "services/ingress/main.ts"]
