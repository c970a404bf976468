import { useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { ReadingDialog } from './Modal';

/**
 * A public key or an address, shortened for the table, with copy and QR actions; the full value is in the title and
 * the copy. `what` names the value for the buttons ("Copy address of …").
 */
export function PublicKey({
  value,
  label,
  what = 'public key',
  shortened = true,
}: {
  value: string;
  label: string;
  what?: string;
  shortened?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const [showQr, setShowQr] = useState(false);
  const copy = () => {
    navigator.clipboard.writeText(value).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      },
      (error: unknown) => console.error('clipboard refused the public key', error),
    );
  };
  return (
    <span className="public-key">
      <code title={value}>{shortened ? shorten(value) : value}</code>
      <button type="button" className="small" onClick={copy} aria-label={`Copy ${what} of ${label}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <button type="button" className="small" onClick={() => setShowQr(true)} aria-label={`QR code of the ${what} of ${label}`}>
        QR
      </button>
      {showQr && <QrDialog value={value} title={`${what.charAt(0).toUpperCase()}${what.slice(1)} of ${label}`} onClose={() => setShowQr(false)} />}
    </span>
  );
}

function shorten(hex: string): string {
  return hex.length <= 20 ? hex : `${hex.slice(0, 10)}…${hex.slice(-8)}`;
}

function QrDialog({ value, title, onClose }: { value: string; title: string; onClose: () => void }) {
  const [dataUrl, setDataUrl] = useState<string>();
  const [failure, setFailure] = useState<string>();
  useEffect(() => {
    QRCode.toDataURL(value, { errorCorrectionLevel: 'M', margin: 2, width: 256 }).then(setDataUrl, (error: unknown) =>
      setFailure(`could not draw the QR code: ${String(error)}`),
    );
  }, [value]);
  return (
    <ReadingDialog title={title} onClose={onClose}>
      <div className="qr">
        {dataUrl !== undefined && <img src={dataUrl} width={256} height={256} alt={`QR code of ${value}`} />}
        {failure !== undefined && <p role="alert">{failure}</p>}
        <code className="full-key">{value}</code>
      </div>
    </ReadingDialog>
  );
}
