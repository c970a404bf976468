/**
 * Entry of one signing worker thread (signing-pool.ts starts them): answers the requests its parent sends, one message
 * at a time. Built as its own file beside the service (electron.vite.config.ts), run from source under tsx otherwise.
 */
import { parentPort } from 'node:worker_threads';
import { answer, type SigningRequest } from './signing-jobs';
import { widenBasePointTables } from './signing';

widenBasePointTables();

// The pool sends the requests that waited together in one message (signing-pool.ts), answered in one.
parentPort!.on('message', (requests: SigningRequest[]) => parentPort!.postMessage(requests.map(answer)));
