/**
 * Entry of one signing worker thread (signing-pool.ts starts them): answers the requests its parent sends, one message
 * at a time. Built as its own file beside the service (electron.vite.config.ts), run from source under tsx otherwise.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadPriority } from '../../node/thread-priority';
import { answer, type SigningRequest } from './signing-jobs';
import { prepareSigningThread } from './signing';

/** Nice values below the service's own; measured against 10 (the same) and 0 (worse) in the signing bench. */
const SIGNING_PRIORITY_STEPS = 5;

prepareSigningThread();
// The event loop is the serial part of every request, and holds the write lock while it runs a transaction: under
// load it should not wait for a core behind a signature, which only its own request waits for. A little lower, not
// the lowest: signatures still get their share beside the machine's other programs.
lowerThisThreadPriority(SIGNING_PRIORITY_STEPS);

// The pool sends the requests that waited together in one message (signing-pool.ts), answered in one.
parentPort!.on('message', (requests: SigningRequest[]) => parentPort!.postMessage(requests.map(answer)));
