import { expect, type Locator } from '@playwright/test';

/**
 * Where an expression display's carets are drawn against the source line they mark: its text, the carets, and the
 * first caret's offset from the character it marks (in pixels, on whatever row that character wrapped to).
 */
async function caretPlacement(display: Locator) {
  return display.evaluate((element) => {
    const source = element.firstChild;
    const marks = element.querySelector('.caret-marks');
    const caret = marks?.querySelector('.caret');
    if (source?.nodeType !== Node.TEXT_NODE || marks === null || marks === undefined || caret === null || caret === undefined) return undefined;
    let offset = 0;
    for (const node of Array.from(marks.childNodes)) {
      if (node === caret) break;
      offset += node.textContent?.length ?? 0;
    }
    const rectOf = (node: Node, at: number) => {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + 1);
      return range.getBoundingClientRect();
    };
    const marked = rectOf(source, offset);
    const drawn = rectOf(caret.firstChild!, 0);
    return {
      line: source.textContent,
      carets: caret.textContent,
      dx: drawn.left - marked.left,
      dy: drawn.top - marked.top,
      rowHeight: marked.height,
    };
  });
}

/** `display` shows `line` with `carets` right under the characters they mark: same column, the row just below. */
export async function expectCaretsUnder(display: Locator, line: string, carets: string): Promise<void> {
  const placement = await caretPlacement(display);
  expect(placement).toMatchObject({ line, carets });
  expect(Math.abs(placement!.dx)).toBeLessThan(1);
  expect(placement!.dy).toBeGreaterThan(placement!.rowHeight / 2);
  expect(placement!.dy).toBeLessThan(placement!.rowHeight * 1.5);
}
