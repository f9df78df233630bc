import type { ReactNode } from 'react';
import { escapePointerSegment } from '../../../common/json-pointer.js';

/** A tainted span of a string argument: JSON pointer, offsets in that string, and its source. */
export interface TaintSpan {
  path: string;
  start: number;
  end: number;
  sourceOutputId: string;
}

function escapeString(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function renderString(text: string, spans: TaintSpan[]): ReactNode {
  if (spans.length === 0) return `"${escapeString(text)}"`;
  const parts: ReactNode[] = ['"'];
  let cursor = 0;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  sorted.forEach((span, index) => {
    const start = Math.max(cursor, Math.min(span.start, text.length));
    const end = Math.max(start, Math.min(span.end, text.length));
    if (start > cursor) parts.push(escapeString(text.slice(cursor, start)));
    parts.push(
      <mark key={index} className="taint-span" title={`tainted by output ${span.sourceOutputId}`}>
        {escapeString(text.slice(start, end))}
      </mark>,
    );
    cursor = end;
  });
  if (cursor < text.length) parts.push(escapeString(text.slice(cursor)));
  parts.push('"');
  return parts;
}

function renderValue(value: unknown, path: string, indent: string, taint: TaintSpan[]): ReactNode {
  if (typeof value === 'string')
    return renderString(
      value,
      taint.filter((span) => span.path === path),
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
    ...entries.flatMap(([key, item], index) => [
      `${inner}${JSON.stringify(key)}: `,
      <span key={key}>{renderValue(item, `${path}/${escapePointerSegment(key)}`, inner, taint)}</span>,
      index < entries.length - 1 ? ',\n' : '\n',
    ]),
    `${indent}}`,
  ];
}

/** Pretty-printed JSON with the tainted spans of string values highlighted (text nodes only). */
export function TaintedJson({ value, taint }: { value: unknown; taint: TaintSpan[] }) {
  return <pre className="inert-text code-block">{renderValue(value, '', '', taint)}</pre>;
}
