/** Spark. */
import { signing, signWith } from './signing';
import type { Describer, Describers } from '../draft';
import { code, record, text } from '../pieces';

const sparkLightningReceive: Describer = (fields, draft) => {
  draft.title = 'Prepare a Spark Lightning receive';
  const lightning = record(fields, 'lightningReceive');
  draft.summary = `for ${signWith(fields).text}`;
  signing(draft, { signWith: signWith(fields), payloads: [], facts: [] });
  if (lightning !== undefined) draft.fact('Payment hash', code(text(lightning, 'paymentHash') ?? ''));
};

export const sparkDescribers = {
  ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE: sparkLightningReceive,
} satisfies Describers;
