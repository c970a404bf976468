# The Sandbox as a container (docs/sandbox.md#docker). The same steps as test/service/package.test.ts: pack the
# Sandbox's own package (its prepack script bundles the service), then install that tarball, which depends on nothing.
FROM node:24-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
# Electron and Playwright are dev dependencies of the desktop app; the pack needs only vite.
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack ./sandbox --pack-destination /tmp && mv /tmp/quorumkey-sandbox-*.tgz /tmp/quorumkey-sandbox.tgz

FROM node:24-bookworm-slim
COPY --from=pack /tmp/quorumkey-sandbox.tgz /tmp/quorumkey-sandbox.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/quorumkey-sandbox.tgz \
    && rm /tmp/quorumkey-sandbox.tgz \
    && npm cache clean --force \
    && mkdir /data \
    && chown node:node /data
USER node
VOLUME /data
# The port is SANDBOX_PORT's, for the Sandbox and its health check alike (docker run -e SANDBOX_PORT=9000).
ENV SANDBOX_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.SANDBOX_PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# sh only to read the port: it execs the bin, whose `#!/usr/bin/env node` execs node, so node is PID 1 and receives
# SIGTERM itself (docker stop), finishing in-flight requests first. The arguments are CMD's, or docker run's.
ENTRYPOINT ["sh", "-c", "exec quorumkey-sandbox --port \"$SANDBOX_PORT\" \"$@\"", "quorumkey-sandbox"]
# Plain HTTP inside the container: publish the port to the host's loopback only (docker run -p 127.0.0.1:8080:8080),
# or mount a certificate and add --tls-cert and --tls-key.
CMD ["--host", "0.0.0.0", "--allow-plaintext", "--db", "/data/sandbox.db"]
