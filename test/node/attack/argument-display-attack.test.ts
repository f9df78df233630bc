// Attacks on how the approval card draws a string argument (renderer/src/run/argument-display.ts),
// run in Node. Each test names a way a value can be drawn so that the person does not read what
// the tool receives; every test fails while the defect it names is there.
import { describe, expect, it } from 'vitest';
import { displayString, displayText } from '../../../renderer/src/run/argument-display.js';

/** Whether `text` holds a stack of more than three combining marks on one character. */
const hasMarkStack = (text: string): boolean => /\p{M}{4,}/u.test(text);

describe('attack: argument display', () => {
  it('does not draw a stack of combining marks as is: "zalgo" text draws over the lines around it', () => {
    // Forty acute accents on one "e": drawn as is, the stack rises far above its line and covers
    // the arguments drawn above it (and the card's own header, in a short box).
    const stacked = `rm -rf ~/e${'\u0301'.repeat(40)}`;
    expect(hasMarkStack(displayText(stacked))).toBe(false);
    // The same with forty different marks (above and below) in a row.
    const mixed = `x${Array.from({ length: 40 }, (_, index) => String.fromCharCode(0x300 + index)).join('')}`;
    expect(hasMarkStack(displayText(mixed))).toBe(false);
    // And inside a taint mark: the tainted run draws its stack as is too.
    const runs = displayString(`safe ${mixed}`, [{ start: 5, end: 5 + mixed.length, sourceOutputId: 'out-1' }]);
    const tainted = runs.find((run) => run.span !== null)!;
    expect(hasMarkStack(tainted.pieces.map((piece) => piece.text).join(''))).toBe(false);
  });

  it('keeps a single accent as it is (the counterpart: ordinary text is not escaped)', () => {
    expect(displayText('café naïve')).toBe('café naïve');
  });
});
