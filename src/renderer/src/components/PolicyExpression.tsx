/**
 * A policy expression as main read it: the text as written, each id shown by the name of what it stands for (the id
 * on hover), each amount with its units beside the base units, and notes where main could not name or convert.
 */
import type { ExpressionPieceView } from '../../../shared/ipc/policy-words';

export function PolicyExpression({
  pieces,
  className,
}: {
  pieces: readonly (ExpressionPieceView & { change?: 'same' | 'removed' | 'added' })[];
  className?: string;
}) {
  return (
    <code className={['policy-expression', className].filter(Boolean).join(' ')}>
      {pieces.map((piece, index) => {
        const changed = piece.change === undefined || piece.change === 'same' ? undefined : `diff-token-${piece.change}`;
        return (
          <span key={index} className={changed}>
            {changed !== undefined && <span className="visually-hidden">{piece.change === 'removed' ? '[removed: ' : '[added: '}</span>}
            <ExpressionPiece piece={piece} />
            {changed !== undefined && <span className="visually-hidden">]</span>}
          </span>
        );
      })}
    </code>
  );
}

function ExpressionPiece({ piece }: { piece: ExpressionPieceView }) {
  if (piece.name !== undefined) {
    return (
      <span className="policy-name" title={`${piece.kind ?? 'id'} ${piece.text}`}>
        {piece.kind} {piece.name}
      </span>
    );
  }
  return (
    <>
      {piece.text}
      {piece.units !== undefined && (
        <span className="policy-units">
          {' '}
          ({piece.units}
          {piece.note !== undefined && <span className="policy-note">; {piece.note}</span>})
        </span>
      )}
      {piece.units === undefined && piece.note !== undefined && <span className="policy-note"> ({piece.note})</span>}
    </>
  );
}
