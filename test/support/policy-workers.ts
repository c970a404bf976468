/**
 * A stand-in for the service's policy workers (src/service/authorize/policy-pool.ts) that answers each job here, in
 * full, and records it: tests see which decisions left the event loop, and what they would have answered.
 */
import { answerInFull, type PolicyJob } from '../../src/service/authorize/policy-jobs';
import type { PolicyJobRunner } from '../../src/service/authorize/policy-pool';

export interface RecordingPolicyWorkers extends PolicyJobRunner {
  readonly jobs: PolicyJob[];
}

export function recordingPolicyWorkers(): RecordingPolicyWorkers {
  const jobs: PolicyJob[] = [];
  return {
    jobs,
    run(job) {
      jobs.push(job);
      return Promise.resolve(answerInFull(job));
    },
  };
}
