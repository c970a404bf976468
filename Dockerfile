# The Sandbox as a container (docs/sandbox.md#docker). The same steps as test/service/package.test.ts: pack the
# repository (the prepack script bundles the service), then install the package from its lockfile without dev
# dependencies and run its bin.
FROM node:24-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
# Electron and Playwright are dev dependencies of the desktop app; the pack needs only vite.
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/quorumkey-*.tgz /tmp/quorumkey.tgz

FROM node:24-bookworm-slim
WORKDIR /app
COPY --from=pack /tmp/quorumkey.tgz /tmp/quorumkey.tgz
COPY package-lock.json ./
RUN tar -xzf /tmp/quorumkey.tgz --strip-components=1 \
    && rm /tmp/quorumkey.tgz \
    && npm ci --omit=dev --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir /data \
    && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The exec form: node is PID 1 and receives SIGTERM itself (docker stop), finishing in-flight requests first.
ENTRYPOINT ["node", "dist-sandbox/quorumkey-sandbox.js"]
# Plain HTTP inside the container: publish the port to the host's loopback only (docker run -p 127.0.0.1:8080:8080),
# or mount a certificate and add --tls-cert and --tls-key.
CMD ["--host", "0.0.0.0", "--allow-plaintext", "--port", "8080", "--db", "/data/sandbox.db"]
