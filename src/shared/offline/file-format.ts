/** Reading a file QuorumKey wrote (a stamped request, a state bundle): JSON first, then its versioned format. */
import type { z } from 'zod';
import { QkError } from '../errors';
import { describeIssues } from '../ipc/contract';

/** What a file is meant to be, in the words its errors use: "stamped request", version 1. */
export interface FileFormat<T> {
  name: string;
  version: number;
  schema: z.ZodType<T>;
}

/** The file's content in `format`; a refusal (FILE_ERROR) names `source`, what the file should have been and why not. */
export function parseQuorumKeyFile<T>(text: string, source: string, format: FileFormat<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new QkError('FILE_ERROR', `${source} is not JSON; expected a ${format.name} written by QuorumKey`, { path: source });
  }
  const parsed = format.schema.safeParse(json);
  if (!parsed.success) {
    throw new QkError('FILE_ERROR', `${source} is not a QuorumKey ${format.name} (version ${format.version}): ${describeIssues(parsed.error)}`, {
      path: source,
    });
  }
  return parsed.data;
}
