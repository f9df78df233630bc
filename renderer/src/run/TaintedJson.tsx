import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import type { TaintSpan } from '../../../common/run-events.js';
import { displayString, type DisplayPiece } from './argument-display';
import { hasRightToLeftLetters } from './mixed-script';

/** Draws pieces; the pieces of a word that mixes scripts are wrapped in one marked span. */
function renderPieces(pieces: DisplayPiece[]): ReactNode[] {
  const drawn: ReactNode[] = [];
  for (let index = 0; index < pieces.length;) {
    const scripts = pieces[index]!.mixedScripts;
    if (scripts === undefined) {
      drawn.push(renderPiece(pieces[index]!, index));
      index += 1;
      continue;
    }
    const word: ReactNode[] = [];
    const first = index;
    for (; index < pieces.length && pieces[index]!.mixedScripts === scripts; index += 1)
      word.push(renderPiece(pieces[index]!, index));
    drawn.push(
      <span key={`word:${first}`} className="mixed-script" title={`This word mixes ${scripts} letters`}>
        {word}
      </span>,
    );
  }
  return drawn;
}

function renderPiece(piece: DisplayPiece, index: number): ReactNode {
  return piece.label === undefined ? (
    piece.text
  ) : (
    <span key={index} className="hidden-char" role="img" aria-label={piece.label} title={piece.label}>
      {piece.text}
    </span>
  );
}

const RIGHT_TO_LEFT_HINT = 'Drawn left to right in the order the tool gets it: right-to-left words read reversed';

/**
 * A string (value or key) in quotes, hidden characters escaped, its tainted spans marked. It is
 * laid out strictly left to right in the order of its characters (run.css: `.arg-string`),
 * so right-to-left letters cannot reorder the digits and punctuation next to them.
 */
function renderString(text: string, spans: TaintSpan[]): ReactNode {
  return (
    <span className="arg-string" title={hasRightToLeftLetters(text) ? RIGHT_TO_LEFT_HINT : undefined}>
      &quot;
      {displayString(text, spans).map((run) =>
        run.span === null ? (
          <span key={run.start}>{renderPieces(run.pieces)}</span>
        ) : (
          <mark key={run.start} className="taint-span" title={`tainted by output ${run.span.sourceOutputId}`}>
            {renderPieces(run.pieces)}
          </mark>
        ),
      )}
      &quot;
    </span>
  );
}

/** Whether a string, key or value, anywhere in `value` holds right-to-left letters. */
function holdsRightToLeft(value: unknown): boolean {
  if (typeof value === 'string') return hasRightToLeftLetters(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsRightToLeft);
  return Object.entries(value as Record<string, unknown>).some(
    ([key, item]) => hasRightToLeftLetters(key) || holdsRightToLeft(item),
  );
}

function renderValue(value: unknown, path: string, indent: string, taint: TaintSpan[]): ReactNode {
  if (typeof value === 'string')
    return renderString(
      value,
      taint.filter((span) => span.path === path && span.key !== true),
    );
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return [
      '[\n',
      ...value.flatMap((item, index) => [
        inner,
        <span key={index}>{renderValue(item, `${path}/${index}`, inner, taint)}</span>,
        index < value.length - 1 ? ',\n' : '\n',
      ]),
      `${indent}]`,
    ];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return [
    '{\n',
    ...entries.flatMap(([key, item], index) => {
      const member = `${path}/${escapePointerSegment(key)}`;
      const keySpans = taint.filter((span) => span.path === member && span.key === true);
      return [
        inner,
        <span key={`key:${key}`}>{renderString(key, keySpans)}</span>,
        ': ',
        <span key={`value:${key}`}>{renderValue(item, member, inner, taint)}</span>,
        index < entries.length - 1 ? ',\n' : '\n',
      ];
    }),
    `${indent}}`,
  ];
}

/** How far the arguments box overflows: the lines it holds and the lines it shows. */
interface Overflow {
  total: number;
  shown: number;
}

function measureOverflow(box: HTMLElement): Overflow | null {
  if (box.scrollHeight <= box.clientHeight + 1) return null;
  const style = getComputedStyle(box);
  const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const lineHeight = parseFloat(style.lineHeight) || 18;
  return {
    total: Math.max(1, Math.round((box.scrollHeight - padding) / lineHeight)),
    shown: Math.max(1, Math.floor((box.clientHeight - padding) / lineHeight)),
  };
}

/**
 * Pretty-printed JSON with the tainted spans of string values and keys highlighted (text nodes
 * only). Hidden and direction-changing characters, stacks of combining marks and the letters of
 * mixed-script words are drawn as escapes (see argument-display.ts); every string is laid out left
 * to right in the order sent, with a note under the box when right-to-left letters are there.
 * When the box is too short for the whole text, a notice under it says so, and the box takes focus
 * so it scrolls from the keyboard.
 */
export function TaintedJson({ value, taint }: { value: unknown; taint: TaintSpan[] }) {
  const box = useRef<HTMLPreElement>(null);
  const noticeId = useId();
  const [overflow, setOverflow] = useState<Overflow | null>(null);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = (): void =>
      setOverflow((previous) => {
        const next = measureOverflow(element);
        return previous?.total === next?.total && previous?.shown === next?.shown ? previous : next;
      });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [value, taint]);
  return (
    <>
      <pre
        ref={box}
        className="inert-text code-block"
        tabIndex={overflow ? 0 : undefined}
        aria-describedby={overflow ? noticeId : undefined}
      >
        {renderValue(value, '', '', taint)}
      </pre>
      {holdsRightToLeft(value) ? (
        <p className="arguments-note small">
          Some text here is in a right-to-left script. It is drawn left to right, in the order the tool gets it, so
          those words read reversed.
        </p>
      ) : null}
      {overflow ? (
        <p id={noticeId} className="arguments-overflow small">
          Arguments continue below: the box shows {overflow.shown} of {overflow.total} lines. Scroll it to read them
          all.
        </p>
      ) : null}
    </>
  );
}
