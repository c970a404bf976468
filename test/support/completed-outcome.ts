/** The outcome of an activity main's channels answer, held to having completed: the test cannot go on otherwise. */
export function completed<T extends { state: string }>(outcome: T): Extract<T, { state: 'completed' }> {
  if (outcome.state !== 'completed') throw new Error(`expected a completed activity, got ${outcome.state}`);
  return outcome as Extract<T, { state: 'completed' }>;
}
