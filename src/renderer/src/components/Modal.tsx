import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';

/**
 * A native modal <dialog>: the browser traps focus inside, Escape closes it and the page behind is inert.
 * Render it to open it; `onClose` runs however it is closed. Focus goes to `initialFocus` once it is open (the
 * dialog's safe answer or its first field; the browser's choice otherwise), and back to the control that opened it.
 */
export function Modal({
  title,
  onClose,
  initialFocus,
  children,
}: {
  title: string;
  onClose: () => void;
  initialFocus?: RefObject<HTMLElement | null>;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement;
    // Removing the element ends the modal state, so unmounting needs no close() (which would fire onClose).
    if (dialog !== null && !dialog.open) dialog.showModal();
    // After showModal, which moves focus itself: children's effects ran before the dialog could take focus.
    initialFocus?.current?.focus();
    return () => {
      // The browser returns focus only on close(); an unmounted dialog leaves it on <body> otherwise.
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
    // A ref is the same object on every render: this runs once, when the dialog opens.
  }, [initialFocus]);
  return (
    <dialog ref={ref} className="modal" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  // Cancel by default, as main's own confirmations are: Enter alone never confirms.
  const cancel = useRef<HTMLButtonElement>(null);
  return (
    <Modal title={title} onClose={onCancel} initialFocus={cancel}>
      <div className="modal-body">{message}</div>
      <div className="button-row">
        <button type="button" onClick={onCancel} ref={cancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/** A dialog that only shows something: its content, then Close, which has the focus (there is nothing to answer). */
export function ReadingDialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const close = useRef<HTMLButtonElement>(null);
  return (
    <Modal title={title} onClose={onClose} initialFocus={close}>
      {children}
      <div className="button-row">
        <button type="button" onClick={onClose} ref={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}
