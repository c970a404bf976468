/**
 * The Sandbox's command line once the service is wanted (cli.ts answers `--help` and `--version` first): reads the
 * flags, starts the service, prints its first line and stops on SIGTERM/SIGINT; or, with --parent-ipc, serves the
 * app that started it.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isApiKeyCurve, type ApiKeyCurve } from '../shared/crypto/keys';
import { QkError } from '../shared/errors';
import { parseJwksFlag } from './auth/oidc';
import { PARENT_IPC_FLAG } from '../shared/service-process';
import { EXIT_START_FAILED, EXIT_USAGE, usageError } from './cli-usage';
import { startService } from './index';
import { serveParent } from './parent-ipc';
import { DEFAULT_HOST } from './server/host-check';
import { batchedLines, LOG_FORMATS, LOG_LEVELS, serviceLog } from './server/request-log';
import { IN_MEMORY } from './store';

/** More signing workers than this only add threads that wait for a core. */
const MAX_SIGNING_WORKERS = 64;

function parseRootKey(value: string): { publicKey: string; curve: ApiKeyCurve } {
  const [publicKey, curve = 'p256', ...rest] = value.split(':');
  if (rest.length > 0 || publicKey === undefined || !/^[0-9a-fA-F]+$/.test(publicKey)) {
    usageError(`--root-public-key ${value}: expected HEX or HEX:CURVE`);
  }
  if (!isApiKeyCurve(curve)) usageError(`--root-public-key ${value}: curve must be p256, secp256k1 or ed25519, got ${curve}`);
  return { publicKey, curve };
}

function readTls(certFile: string | undefined, keyFile: string | undefined): { tls?: { cert: string; key: string } } {
  if (certFile === undefined && keyFile === undefined) return {};
  if (certFile === undefined || keyFile === undefined) usageError('--tls-cert and --tls-key go together: give both PEM files');
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      return usageError(`${flag} ${file}: ${(error as Error).message}`);
    }
  };
  return { tls: { cert: read('--tls-cert', certFile), key: read('--tls-key', keyFile) } };
}

/** `--rpc CAIP2=URL`, repeatable: one node per chain, reached over HTTP(S). */
function parseRpcFlags(flags: readonly string[]): Record<string, string> {
  const nodes: Record<string, string> = {};
  for (const flag of flags) {
    const separator = flag.indexOf('=');
    const caip2 = flag.slice(0, separator);
    const url = flag.slice(separator + 1);
    if (separator <= 0 || !/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(caip2))
      usageError(`--rpc expects CAIP2=URL (e.g. eip155:31337=http://127.0.0.1:8545), got ${flag}`);
    if (!URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) usageError(`--rpc ${caip2}: ${url} is not an http(s) URL`);
    if (caip2 in nodes) usageError(`--rpc ${caip2} is given twice`);
    nodes[caip2] = url;
  }
  return nodes;
}

/** `--token CAIP2=ADDRESS`, repeatable: the ERC-20 contracts whose balances are reported, grouped by chain (checked at start). */
function parseTokenFlags(flags: readonly string[]): Record<string, string[]> {
  const tokens: Record<string, string[]> = {};
  for (const flag of flags) {
    const separator = flag.indexOf('=');
    if (separator <= 0) usageError(`--token expects CAIP2=ADDRESS (e.g. eip155:31337=0x5FbDB2315678afecb367f032d93F642f64180aa3), got ${flag}`);
    (tokens[flag.slice(0, separator)] ??= []).push(flag.slice(separator + 1));
  }
  return tokens;
}

function parseCommandLine(args: readonly string[]) {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: {
        host: { type: 'string', default: DEFAULT_HOST },
        'allowed-host': { type: 'string', multiple: true, default: [] },
        port: { type: 'string', default: '0' },
        db: { type: 'string', default: 'quorumkey-service.db' },
        'root-public-key': { type: 'string', multiple: true, default: [] },
        seed: { type: 'string' },
        'clock-control': { type: 'boolean', default: false },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'allow-plaintext': { type: 'boolean', default: false },
        'otp-outbox': { type: 'string' },
        'oidc-jwks': { type: 'string', multiple: true, default: [] },
        'signing-workers': { type: 'string' },
        rpc: { type: 'string', multiple: true, default: [] },
        token: { type: 'string', multiple: true, default: [] },
        'max-node-fee': { type: 'string' },
        'webhook-allow-any-host': { type: 'boolean', default: false },
        'log-level': { type: 'string', default: 'info' },
        'log-format': { type: 'string', default: 'text' },
        'load-state': { type: 'string' },
        'dump-state': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) usageError(`--port must be 0…65535, got ${values.port}`);
    const signingWorkers = values['signing-workers'] === undefined ? undefined : Number(values['signing-workers']);
    if (signingWorkers !== undefined && (!Number.isInteger(signingWorkers) || signingWorkers < 1 || signingWorkers > MAX_SIGNING_WORKERS)) {
      usageError(`--signing-workers must be 1…${MAX_SIGNING_WORKERS}, got ${values['signing-workers']}`);
    }
    const maxNodeFee = values['max-node-fee'];
    if (maxNodeFee !== undefined && !/^[1-9]\d{0,76}$/.test(maxNodeFee))
      usageError(`--max-node-fee must be a whole number of wei above 0, got ${maxNodeFee}`);
    const level = LOG_LEVELS.find((name) => name === values['log-level']);
    if (level === undefined) usageError(`--log-level must be ${LOG_LEVELS.join(', ')}, got ${values['log-level']}`);
    const format = LOG_FORMATS.find((name) => name === values['log-format']);
    if (format === undefined) usageError(`--log-format must be ${LOG_FORMATS.join(' or ')}, got ${values['log-format']}`);
    const stderrLines = batchedLines((text) => process.stderr.write(text));
    const log = serviceLog(level, format, stderrLines.now, stderrLines.soon);
    return {
      log,
      host: values.host,
      allowedHosts: values['allowed-host'],
      port,
      db: values.db,
      rootPublicKeys: values['root-public-key'].map(parseRootKey),
      oidcIssuers: values['oidc-jwks'].map(parseJwksFlag),
      rpc: parseRpcFlags(values.rpc),
      tokens: parseTokenFlags(values.token),
      ...(values['otp-outbox'] === undefined ? {} : { otpOutbox: values['otp-outbox'] }),
      ...(values.seed === undefined ? {} : { seed: values.seed }),
      ...(values['load-state'] === undefined ? {} : { loadState: values['load-state'] }),
      ...(values['dump-state'] === undefined ? {} : { dumpState: values['dump-state'] }),
      clockControl: values['clock-control'],
      allowPlaintext: values['allow-plaintext'],
      webhookAllowAnyHost: values['webhook-allow-any-host'],
      ...readTls(values['tls-cert'], values['tls-key']),
      ...(signingWorkers === undefined ? {} : { signingWorkers }),
      ...(maxNodeFee === undefined ? {} : { maxNodeFeeWei: BigInt(maxNodeFee) }),
    };
  } catch (error) {
    return usageError((error as Error).message);
  }
}

async function main(args: readonly string[]): Promise<void> {
  const { log, ...options } = parseCommandLine(args);
  let service;
  try {
    service = await startService({ ...options, log: log.line, requestLog: log.request });
  } catch (error) {
    log.line(`the service could not start: ${error instanceof QkError ? `${error.code}: ${error.message}` : String(error)}`);
    process.exit(EXIT_START_FAILED);
  }
  const shutdown = (signal: string): void => {
    log.line(`${signal}: finishing in-flight requests, then closing the database`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.line(`shutdown failed: ${String(error)}`);
        process.exit(EXIT_START_FAILED);
      },
    );
  };
  // Handlers first: whoever reads the info line may signal at once.
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  if (process.env.npm_command === 'exec') stopWithNpx(shutdown);
  process.stdout.write(`${JSON.stringify(service.info)}\n`);
  const where = options.db === IN_MEMORY ? ` (for --db ${IN_MEMORY}: its folder is removed when the Sandbox stops)` : '';
  log.line(`serving ${service.info.baseUrl} with database ${service.store.path}${where}`);
}

/** How often a Sandbox run by npx looks whether npx is still there. */
const PARENT_CHECK_MS = 500;

/**
 * npx runs the bin through `sh -c`, and on SIGTERM stops that shell but not the Sandbox under it, which would run on
 * with no one to stop it: a Sandbox started by npx (npm_command=exec) stops once the process that started it is gone.
 * Started any other way (a script's `&`, a service manager) it keeps running when its parent exits.
 */
function stopWithNpx(shutdown: (reason: string) => void): void {
  const parent = process.ppid;
  const check = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(check);
    shutdown('npx, which started it, exited');
  }, PARENT_CHECK_MS);
  check.unref();
}

export async function runCli(args: readonly string[]): Promise<void> {
  if (!args.includes(PARENT_IPC_FLAG)) {
    await main(args);
  } else if (!serveParent()) {
    console.error(`${PARENT_IPC_FLAG}: this process has no IPC channel to the process that started it`);
    process.exit(EXIT_USAGE);
  }
}
