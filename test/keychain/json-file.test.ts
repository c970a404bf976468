import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { QkError } from '../../src/shared/errors';
import { JsonFile } from '../../src/main/storage/json-file';
import { rejection } from '../support/assertions';

const counterSchema = z.object({ count: z.number().int() });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qk-json-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JsonFile', () => {
  it('reads undefined before the first write, then what was written, with mode 0600 in a 0700 directory', async () => {
    const file = new JsonFile(join(dir, 'nested', 'counter.json'), counterSchema);
    expect(await file.read()).toBeUndefined();
    await file.write({ count: 3 });
    expect(await file.read()).toEqual({ count: 3 });
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, 'nested'))).toEqual(['counter.json']);
  });

  it('names the file when it is not JSON', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{"count": 1', 'utf8');
    const error = await rejection(new JsonFile(path, counterSchema).read());
    expect(error.code).toBe('FILE_ERROR');
    expect(error.message).toContain(path);
    expect(error.message).toContain('not valid JSON');
  });

  it('names the file and the field when the structure is wrong', async () => {
    const path = join(dir, 'wrong.json');
    await writeFile(path, '{"count": "three"}', 'utf8');
    const error = await rejection(new JsonFile(path, counterSchema).read());
    expect(error.code).toBe('FILE_ERROR');
    expect(error.message).toContain(path);
    expect(error.message).toContain('count:');
  });

  it('refuses to write a document that does not match its schema and leaves the old one intact', async () => {
    const file = new JsonFile(join(dir, 'counter.json'), counterSchema);
    await file.write({ count: 1 });
    const error = await rejection(file.write({ count: 1.5 }));
    expect(error.code).toBe('INTERNAL');
    expect(await file.read()).toEqual({ count: 1 });
    expect(await readdir(dir)).toEqual(['counter.json']);
  });

  it('serializes concurrent updates, also across instances on the same path', async () => {
    const path = join(dir, 'counter.json');
    const files = [new JsonFile(path, counterSchema), new JsonFile(path, counterSchema)];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        files[index % 2]!.update(async (current) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return { next: { count: (current?.count ?? 0) + 1 }, result: undefined };
        }),
      ),
    );
    expect(await files[0]!.read()).toEqual({ count: 20 });
  });

  it('keeps the previous document when an update fails before writing, and keeps working afterwards', async () => {
    const file = new JsonFile(join(dir, 'counter.json'), counterSchema);
    await file.write({ count: 1 });
    await expect(
      file.update(async () => {
        throw new QkError('KEYCHAIN_UNAVAILABLE', 'simulated');
      }),
    ).rejects.toThrow('simulated');
    expect(JSON.parse(await readFile(file.path, 'utf8'))).toEqual({ count: 1 });
    await file.update(async (current) => ({ next: { count: current!.count + 1 }, result: undefined }));
    expect(await file.read()).toEqual({ count: 2 });
  });

  it('reports an unwritable directory as FILE_ERROR naming the file', async () => {
    const blocker = join(dir, 'not-a-directory');
    await writeFile(blocker, 'x');
    const path = join(blocker, 'counter.json');
    const error = await rejection(new JsonFile(path, counterSchema).write({ count: 1 }));
    expect(error.code).toBe('FILE_ERROR');
    expect(error.message).toContain(path);
  });
});
