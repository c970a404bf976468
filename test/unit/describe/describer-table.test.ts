/**
 * The describers' table is keyed by activity type: every type the operation table submits has a describer, and the
 * compiler proves it. The `@ts-expect-error` below is the fixture: `tsc --noEmit` fails if a table without a
 * describer for a served type were accepted (the directive would then be unused).
 */
import { describe, expect, it } from 'vitest';
import { activityOperations } from '../../../src/shared/api';
import { DESCRIBERS, type DescriberTable } from '../../../src/shared/describe';

describe('the describer table', () => {
  it('does not compile without a describer for a served type', () => {
    const { ACTIVITY_TYPE_CREATE_WALLET: _left, ...withoutOne } = DESCRIBERS;
    // @ts-expect-error ACTIVITY_TYPE_CREATE_WALLET has no describer, so this is no DescriberTable.
    const incomplete: DescriberTable = withoutOne;
    expect(Object.hasOwn(incomplete, 'ACTIVITY_TYPE_CREATE_WALLET')).toBe(false);
  });

  it('has a describer for every type the operation table submits', () => {
    for (const { activityType } of Object.values(activityOperations)) expect(Object.hasOwn(DESCRIBERS, activityType), activityType).toBe(true);
  });
});
