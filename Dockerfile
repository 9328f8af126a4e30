# syntax=docker/dockerfile:1
# Tollgate's images, one Dockerfile, three targets (see README "Deploying with containers"):
#   docker build --target app     -t tollgate-app .      # the Next app (standalone server), port 3000
#   docker build --target gateway -t tollgate-gateway .  # the lean /v1 gateway, port 3001
#   docker build --target worker  -t tollgate-worker .   # background work (npm run worker)
# All run as the unprivileged `node` user and have a HEALTHCHECK on their liveness probe.

ARG NODE_IMAGE=node:22-bookworm-slim

# Dependencies, exactly as locked (no install scripts are needed).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The patched postgres-js tarball package.json installs (vendor/README.md).
COPY vendor ./vendor
RUN npm ci --no-audit --no-fund --ignore-scripts

# The production build: Next's standalone output (.next/standalone: server.js and a traced node_modules).
FROM deps AS build
ENV NEXT_TELEMETRY_DISABLED=1 TOLLGATE_STANDALONE=1
COPY . .
RUN npx next build

# The Next app: only the standalone output, its static files and public/ (which standalone leaves out).
# No image seeds the demo accounts (SEED_DEMO=0), not even on its embedded database.
FROM ${NODE_IMAGE} AS app
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 HOSTNAME=0.0.0.0 PORT=3000 SEED_DEMO=0
COPY --from=build --chown=node:node /app/.next/standalone ./
COPY --from=build --chown=node:node /app/.next/static ./.next/static
COPY --from=build --chown=node:node /app/public ./public
RUN mkdir -p .data && chown node:node .data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "server.js"]

# The lean gateway and the worker run from source on Node with tsx (as `npm run gateway` / `npm run worker`).
FROM ${NODE_IMAGE} AS source
WORKDIR /app
ENV NODE_ENV=production SEED_DEMO=0
COPY --from=deps /app/node_modules ./node_modules
COPY --chown=node:node package.json tsconfig.json ./
COPY --chown=node:node lib ./lib
COPY --chown=node:node db ./db
COPY --chown=node:node features ./features
COPY --chown=node:node server ./server
COPY --chown=node:node schemas ./schemas
RUN mkdir -p .data && chown node:node .data
USER node

FROM source AS gateway
ENV GATEWAY_PORT=3001
EXPOSE 3001
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.GATEWAY_PORT||3001)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--conditions=react-server", "--import", "tsx", "server/gateway.ts"]

FROM source AS worker
ENV WORKER_HEALTH_PORT=3002
EXPOSE 3002
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WORKER_HEALTH_PORT||3002)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--conditions=react-server", "--import", "tsx", "server/worker.ts"]
