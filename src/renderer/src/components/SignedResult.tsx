import { useState, type FormEvent } from 'react';
import type { SigningResultView } from '../../../shared/ipc/signing';
import { useAction } from '../mutations';
import { FileNameField } from './TextFields';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';

/** A signed transaction as its hex, signatures as their r, s and v. */
export function signedResultText(result: SigningResultView): string {
  if (result.kind === 'signed-transaction') return result.signedTransaction;
  return result.signatures.map(({ r, s, v }) => `r=${r}\ns=${s}\nv=${v}`).join('\n\n');
}

/**
 * A completed signing request's result, as main read it from the activity: shown, copied, or saved by main into the
 * signatures folder it keeps (the page names the file, never a path).
 */
export function SignedResult({ activityId, result }: { activityId: string; result: SigningResultView }) {
  const action = useAction();
  const [copied, setCopied] = useState(false);
  const [file, setFile] = useState(`signed-${activityId.slice(0, 8)}.json`);
  const [saved, setSaved] = useState<string>();
  const text = signedResultText(result);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const done = await action.run(`Saving the signature to ${file}…`, 'signing.saveResult', { activityId, file });
    if (done !== undefined) setSaved(done.file);
  };
  return (
    <section className="signed-result" aria-label="Signed result">
      <p className="notice notice-info" role="status">
        Signed.
      </p>
      <pre className="payload-text" aria-label={result.kind === 'signed-transaction' ? 'Signed transaction' : 'Signatures'}>
        {text}
      </pre>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      <form className="inline-form" aria-label="Save signature to file" onSubmit={(event) => void save(event)}>
        <button type="button" onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true))}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <FileNameField label="File name" value={file} onChange={setFile} />
        <button type="submit" disabled={action.busy !== undefined}>
          Save to file
        </button>
      </form>
      {saved !== undefined && (
        <p className="notice notice-info" role="status">
          Saved to <code>{saved}</code>.
        </p>
      )}
    </section>
  );
}
