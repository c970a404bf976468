/** Smart contract interfaces uploaded for clear signing. */
import type { Describer, Describers } from '../draft';
import { code, deleteById, plain, text } from '../pieces';
import { enumInWords } from '../words';

const createSmartContractInterface: Describer = (fields, draft) => {
  const label = text(fields, 'label') ?? 'unnamed';
  draft.title = 'Add a smart contract interface';
  draft.change('Interface', [], [plain(label)]);
  draft.fact('Contract', code(text(fields, 'smartContractAddress') ?? ''));
  draft.fact('Kind', plain(enumInWords(text(fields, 'type') ?? '', 'SMART_CONTRACT_INTERFACE_TYPE_')));
  draft.summary = label;
};

export const contractDescribers = {
  ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: createSmartContractInterface,
  ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE: deleteById(
    'Remove a smart contract interface',
    'smart contract interface',
    'smartContractInterfaceId',
  ),
} satisfies Describers;
