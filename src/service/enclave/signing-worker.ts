/**
 * Entry of one signing worker thread (signing-pool.ts starts them): answers each request its parent sends, one at a
 * time. Built as its own file beside the service (electron.vite.config.ts), run from source under tsx otherwise.
 */
import { parentPort } from 'node:worker_threads';
import { answer, type SigningRequest } from './signing-jobs';
import { widenBasePointTables } from './signing';

widenBasePointTables();

parentPort!.on('message', (request: SigningRequest) => parentPort!.postMessage(answer(request)));
