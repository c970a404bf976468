/**
 * The hostile service of test/support/hostile-service.ts in a process of its own, for the bench: what it costs to
 * build and send its answers is not counted against main. Its options are the first argument, as JSON; it prints
 * `{"baseUrl": …}` once listening and stops on SIGTERM.
 */
import { startHostileService, type HostileServiceOptions } from '../support/hostile-service.js';

const service = await startHostileService(JSON.parse(process.argv[2] ?? '{}') as HostileServiceOptions);
process.stdout.write(`${JSON.stringify({ baseUrl: service.baseUrl })}\n`);
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
