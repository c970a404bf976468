/** The last click past a look-alike address: a second question after the first go-ahead, and none for a rejection. */
import { describe, expect, it } from 'vitest';
import { requireStampConfirmation, type ConfirmationRequest, type Reading } from '../../src/main/confirmation/confirmation';
import { QkError } from '../../src/shared/errors';

const POISONED = '0x7099F1f84d909a54b28984f5893d86859F5479c8';
const PAYROLL = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const reading = (action: Reading['action']): Reading => ({
  action,
  delivery: 'post',
  activityType: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
  title: 'Sign an Ethereum transaction',
  summary: `Send 1 ETH to ${POISONED} on Ethereum`,
  facts: [],
  changes: [],
  warnings: [],
  verdict: 'no policy matches; the root quorum decides',
  stillNeeded: 'nothing more',
  lookAlikes: [
    {
      address: POISONED,
      known: { address: PAYROLL, name: 'Payroll\u202e' },
      addressDiffers: [{ start: 6, end: 38 }],
      knownDiffers: [{ start: 6, end: 38 }],
    },
  ],
});

/** A person answering each question in turn with `answers`; records what was asked. */
function person(answers: readonly boolean[]) {
  const asked: ConfirmationRequest[] = [];
  const confirm = (request: ConfirmationRequest) => {
    asked.push(request);
    return Promise.resolve(answers[asked.length - 1] ?? false);
  };
  return { asked, confirm };
}

async function outcome(promise: Promise<void>): Promise<QkError | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => error as QkError,
  );
}

describe('the look-alike question', () => {
  it('asks a second time, naming both addresses with the middle in brackets; declining it refuses the stamp', async () => {
    const { asked, confirm } = person([true, false]);
    const error = await outcome(requireStampConfirmation(confirm, reading('submit'), 'Submitting "Sign an Ethereum transaction"'));
    expect(error?.code).toBe('USER_DECLINED');
    expect(error?.message).toContain(`past its look-alike address ${POISONED} was declined`);
    expect(asked).toHaveLength(2);
    const [first, second] = asked;
    expect(first?.goAhead).toBeUndefined();
    // The name is shown escaped: its right-to-left override cannot reorder the button's words.
    expect(second?.goAhead).toBe('I checked: this is not Payroll\\u202E');
    expect(second?.detail).toContain(`In this request:  0x7099[${POISONED.slice(6, 38)}]79c8`);
    expect(second?.detail).toContain(`:  0x7099[${PAYROLL.slice(6, 38)}]79C8`);
  });

  it('lets the stamp happen only once the person went ahead on both, and asks a rejection once', async () => {
    const both = person([true, true]);
    expect(await outcome(requireStampConfirmation(both.confirm, reading('approve'), 'Approving it'))).toBeUndefined();
    expect(both.asked).toHaveLength(2);

    const firstOnly = person([false, true]);
    expect((await outcome(requireStampConfirmation(firstOnly.confirm, reading('approve'), 'Approving it')))?.code).toBe('USER_DECLINED');
    expect(firstOnly.asked).toHaveLength(1);

    const rejecting = person([true]);
    expect(await outcome(requireStampConfirmation(rejecting.confirm, reading('reject'), 'Rejecting it'))).toBeUndefined();
    expect(rejecting.asked).toHaveLength(1);
  });
});
