import { describe, expect, it } from 'vitest';
import { activityOperations } from '../../../src/shared/api';
import { unknownActivityTypes } from '../../../src/shared/policy/type-hints';

const known = Object.values(activityOperations).map((op) => op.activityType);

describe('unknownActivityTypes', () => {
  it('finds a misspelled type and suggests the closest known one', () => {
    expect(unknownActivityTypes("activity.type == 'ACTIVITY_TYPE_EXPORT_WALET'", known)).toEqual([
      { name: 'ACTIVITY_TYPE_EXPORT_WALET', suggestion: 'ACTIVITY_TYPE_EXPORT_WALLET' },
    ]);
    expect(unknownActivityTypes("activity.type in ['ACTIVITY_TYPE_CREATE_POLICY_V2', 'ACTIVITY_TYPE_CREATE_WALLET']", known)).toEqual([
      { name: 'ACTIVITY_TYPE_CREATE_POLICY_V2', suggestion: 'ACTIVITY_TYPE_CREATE_POLICY_V3' },
    ]);
  });

  it('accepts known types, offers no suggestion for a different word, and leaves broken text to the parser', () => {
    expect(unknownActivityTypes("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", known)).toEqual([]);
    expect(unknownActivityTypes("activity.type == 'ACTIVITY_TYPE_LAUNCH_ROCKETS'", known)).toEqual([
      { name: 'ACTIVITY_TYPE_LAUNCH_ROCKETS', suggestion: undefined },
    ]);
    expect(unknownActivityTypes("activity.type == 'ACTIVITY_TYPE_", known)).toEqual([]);
  });
});
