/**
 * Which of Turnkey's operations the Sandbox serves (docs/sandbox.md#api-coverage): per swagger tag, the operations of
 * Turnkey's public API swagger it answers and those it does not, read from the routes a real service registers
 * (startService on a `:memory:` database: the operation table's routes over the families it serves). Then the
 * operations @turnkey/http's generated client knows that the swagger lacks, the auth proxy's operations against its
 * own swagger, and the routes only the Sandbox has.
 *
 *   npx tsx scripts/api-coverage.ts          # or: npm run --silent api-coverage
 *   npx tsx scripts/api-coverage.ts --json   # the same, as one JSON object
 *
 * The swaggers are the pinned copies in test/unit/api/fixtures (Apache-2.0, from Turnkey's SDK repository), so the
 * script runs in a clone alone.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startService } from '../src/service';

const ROOT = resolve(import.meta.dirname, '..');
const PUBLIC_API_SWAGGER = join(ROOT, 'test/unit/api/fixtures/turnkey-public-api.swagger.json');
const AUTH_PROXY_SWAGGER = join(ROOT, 'test/unit/api/fixtures/turnkey-auth-proxy.swagger.json');
/** Where @turnkey/http declares the paths its generated client posts to. */
const HTTP_CLIENT_TYPES = 'dist/__generated__/services/coordinator/public/v1/public_api.types.d.ts';

interface SwaggerOperation {
  path: string;
  tag: string;
  summary: string;
}

export interface TagCoverage {
  tag: string;
  served: string[];
  unserved: SwaggerOperation[];
}

export interface ApiCoverage {
  publicApi: { swagger: string; total: number; served: number; tags: TagCoverage[] };
  /** Paths @turnkey/http's client posts to that the swagger does not list. */
  clientOnly: { client: string; paths: { path: string; served: boolean }[] };
  authProxy: { swagger: string; total: number; served: number; unserved: string[] };
  /** Routes the Sandbox answers that neither swagger lists (its own, under /sandbox/v1, and /health). */
  sandboxOnly: string[];
}

function swaggerOperations(file: string): SwaggerOperation[] {
  const swagger = JSON.parse(readFileSync(file, 'utf8')) as { paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> };
  return Object.entries(swagger.paths).flatMap(([path, methods]) =>
    Object.values(methods).map((operation) => ({ path, tag: operation.tags?.[0] ?? '(no tag)', summary: operation.summary ?? '' })),
  );
}

/** The client's version and every `/public/v1/…` path its generated types declare. */
function clientPaths(): { client: string; paths: string[] } {
  // The package exports no package.json: its folder is found from its entry.
  const entry = createRequire(join(ROOT, 'package.json')).resolve('@turnkey/http');
  const folder = join(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  const types = readFileSync(join(folder, HTTP_CLIENT_TYPES), 'utf8');
  const paths = [...types.matchAll(/^ {4}"(\/public\/v1\/[a-z0-9_/]+)": \{$/gm)].map((match) => match[1]!);
  return { client: `@turnkey/http ${version}`, paths: [...new Set(paths)] };
}

/** The coverage of a service that serves `routes` (`METHOD path` each). */
export function coverageOf(routes: readonly { method: string; path: string }[]): ApiCoverage {
  const served = new Set(routes.filter((route) => route.method === 'POST').map((route) => route.path));
  const publicOperations = swaggerOperations(PUBLIC_API_SWAGGER);
  const byTag = new Map<string, TagCoverage>();
  for (const operation of publicOperations) {
    let entry = byTag.get(operation.tag);
    if (entry === undefined) byTag.set(operation.tag, (entry = { tag: operation.tag, served: [], unserved: [] }));
    if (served.has(operation.path)) entry.served.push(operation.path);
    else entry.unserved.push(operation);
  }
  const tags = [...byTag.values()].sort((a, b) => a.tag.localeCompare(b.tag));
  const swaggerPaths = new Set(publicOperations.map((operation) => operation.path));
  const client = clientPaths();
  const proxyPaths = swaggerOperations(AUTH_PROXY_SWAGGER).map((operation) => operation.path);
  const listed = new Set([...swaggerPaths, ...client.paths, ...proxyPaths]);
  return {
    publicApi: {
      swagger: 'test/unit/api/fixtures/turnkey-public-api.swagger.json',
      total: publicOperations.length,
      served: tags.reduce((sum, tag) => sum + tag.served.length, 0),
      tags,
    },
    clientOnly: {
      client: client.client,
      paths: client.paths.filter((path) => !swaggerPaths.has(path)).map((path) => ({ path, served: served.has(path) })),
    },
    authProxy: {
      swagger: 'test/unit/api/fixtures/turnkey-auth-proxy.swagger.json',
      total: proxyPaths.length,
      served: proxyPaths.filter((path) => served.has(path)).length,
      unserved: proxyPaths.filter((path) => !served.has(path)),
    },
    sandboxOnly: routes
      .filter((route) => !listed.has(route.path) && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.path}`)
      .sort(),
  };
}

/** Starts a service on a throwaway database, reads the routes it registered, and stops it. */
export async function servedRoutes(): Promise<{ method: string; path: string }[]> {
  const service = await startService({ db: ':memory:', log: () => {}, signingWorkers: 1 });
  try {
    return [...service.httpRoutes];
  } finally {
    await service.close();
  }
}

function report(coverage: ApiCoverage): string {
  const { publicApi, clientOnly, authProxy, sandboxOnly } = coverage;
  const width = Math.max(...publicApi.tags.map((tag) => tag.tag.length));
  const lines = [
    `Turnkey public API (${publicApi.swagger}): the Sandbox serves ${publicApi.served} of ${publicApi.total} operations`,
    '',
    `${'tag'.padEnd(width)}  served / all`,
    ...publicApi.tags.map((tag) => `${tag.tag.padEnd(width)}  ${String(tag.served.length).padStart(6)} / ${tag.served.length + tag.unserved.length}`),
    '',
    'Not served:',
    ...publicApi.tags.flatMap((tag) => tag.unserved.map((operation) => `  ${tag.tag}: ${operation.path}  ${operation.summary}`)),
    '',
    `In ${clientOnly.client}'s client, not in the swagger (${clientOnly.paths.length}; served ${clientOnly.paths.filter((entry) => entry.served).length}):`,
    ...clientOnly.paths.map((entry) => `  ${entry.served ? 'served    ' : 'not served'}  ${entry.path}`),
    '',
    `Auth proxy (${authProxy.swagger}): ${authProxy.served} of ${authProxy.total} served${authProxy.unserved.length === 0 ? '' : `; not served: ${authProxy.unserved.join(', ')}`}`,
    '',
    `The Sandbox's own routes (${sandboxOnly.length}):`,
    ...sandboxOnly.map((route) => `  ${route}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } }, strict: true });
  const coverage = coverageOf(await servedRoutes());
  process.stdout.write(values.json ? `${JSON.stringify(coverage, null, 2)}\n` : report(coverage));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    process.stderr.write(`api-coverage: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
