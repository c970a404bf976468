/**
 * ERC-7730 paths: `#.` (the decoded call or message), `$.` (the merged descriptor), `@.` (the container) or relative
 * to the enclosing group. Steps are names, `[i]` indexes (negative from the end), and `[a:b]` slices (`[]` is all of
 * an array). The spec writes `a.[0]`; descriptors also write `a[0]`, which reads the same.
 */
import { QkError } from '../../errors';

export type PathStep = { kind: 'name'; name: string } | { kind: 'index'; index: number } | { kind: 'slice'; start?: number; end?: number };

export interface Path {
  root: '#' | '$' | '@' | 'relative';
  steps: PathStep[];
}

const STEP = /^(?:([A-Za-z_$][\w$]*)|\[(-?\d+)?(?:(:)(-?\d+)?)?\])/;

export function parsePath(text: string): Path {
  let rest = text.trim();
  let root: Path['root'] = 'relative';
  const first = rest[0];
  if ((first === '#' || first === '$' || first === '@') && (rest.length === 1 || rest[1] === '.')) {
    root = first;
    rest = rest.slice(2);
  }
  const steps: PathStep[] = [];
  while (rest.length > 0) {
    if (rest.startsWith('.')) rest = rest.slice(1);
    const match = STEP.exec(rest);
    if (match === null) throw new QkError('REQUEST_INVALID', `the path “${text}” is not an ERC-7730 path (at “${rest}”)`);
    const [whole, name, index, colon, end] = match;
    if (name !== undefined) steps.push({ kind: 'name', name });
    else if (colon === undefined && index !== undefined) steps.push({ kind: 'index', index: Number(index) });
    else {
      const slice: PathStep = { kind: 'slice' };
      if (index !== undefined) slice.start = Number(index);
      if (end !== undefined) slice.end = Number(end);
      steps.push(slice);
    }
    rest = rest.slice(whole.length);
  }
  return { root, steps };
}

export function pathText(path: Path): string {
  const steps = path.steps.map((step) => {
    if (step.kind === 'name') return step.name;
    if (step.kind === 'index') return `[${step.index}]`;
    return step.start === undefined && step.end === undefined ? '[]' : `[${step.start ?? ''}:${step.end ?? ''}]`;
  });
  const root = path.root === 'relative' ? '#' : path.root;
  return [root, ...steps].join('.');
}

/** A path relative to a group is read under the group's own (already absolute) path. */
export function underBase(path: Path, base: Path): Path {
  return path.root === 'relative' ? { root: base.root, steps: [...base.steps, ...path.steps] } : path;
}

/** Whether two paths name the same data, a relative path and its `#.` spelling alike. */
export function samePath(a: Path, b: Path): boolean {
  return pathText(a) === pathText(b);
}
