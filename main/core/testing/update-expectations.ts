import { setYamlValue } from '../../../common/yaml-edit.js';
import type { CaseResult } from './run-case.js';

/**
 * `promptforge test --update`: the expectations a failing case's run suggests (its status, its
 * calls with their exact arguments, the model's final text), written into its test file through
 * the YAML document model (comments and the rest of the file stay as written). The caller shows
 * the diff; nothing changes unseen.
 */
export function updatedTestFile(text: string, updates: readonly { index: number; result: CaseResult }[]): string {
  let updated = text;
  for (const { index, result } of updates) {
    const observed = result.observed;
    if (!observed) continue;
    const at = (field: string) => ['cases', index, 'expect', field];
    updated = setYamlValue(updated, at('status'), observed.status);
    updated = setYamlValue(
      updated,
      at('calls'),
      observed.calls.map((call) => ({ tool: call.tool, arguments: call.arguments })),
    );
    updated = setYamlValue(updated, at('final'), observed.final ?? undefined);
  }
  return updated;
}

/** Lines of context around each change in {@link lineDiff}. */
const CONTEXT = 2;
/** Past this many lines on either side, the diff compares without the quadratic table. */
const MAX_TABLE_LINES = 3000;

/** A unified-style diff of two texts: `-` removed, `+` added lines, with context and line numbers. */
export function lineDiff(before: string, after: string, name: string): string[] {
  if (before === after) return [];
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix += 1;
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const ops: { kind: ' ' | '-' | '+'; text: string; line: number }[] = [];
  if (midA.length > MAX_TABLE_LINES || midB.length > MAX_TABLE_LINES) {
    midA.forEach((text, i) => ops.push({ kind: '-', text, line: prefix + i + 1 }));
    midB.forEach((text, i) => ops.push({ kind: '+', text, line: prefix + i + 1 }));
  } else {
    // Longest common subsequence table, from the end.
    const table = Array.from({ length: midA.length + 1 }, () => new Uint32Array(midB.length + 1));
    for (let i = midA.length - 1; i >= 0; i -= 1)
      for (let j = midB.length - 1; j >= 0; j -= 1)
        table[i]![j] = midA[i] === midB[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    let i = 0;
    let j = 0;
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
        ops.push({ kind: ' ', text: midA[i]!, line: prefix + i + 1 });
        i += 1;
        j += 1;
      } else if (j < midB.length && (i === midA.length || table[i]![j + 1]! >= table[i + 1]![j]!)) {
        ops.push({ kind: '+', text: midB[j]!, line: prefix + j + 1 });
        j += 1;
      } else {
        ops.push({ kind: '-', text: midA[i]!, line: prefix + i + 1 });
        i += 1;
      }
    }
  }
  const head = a.slice(Math.max(0, prefix - CONTEXT), prefix).map((text, k, list) => ({
    kind: ' ' as const,
    text,
    line: prefix - list.length + k + 1,
  }));
  const tail = a.slice(a.length - suffix, a.length - suffix + CONTEXT).map((text, k) => ({
    kind: ' ' as const,
    text,
    line: a.length - suffix + k + 1,
  }));
  const all = [...head, ...ops, ...tail];
  return [
    `--- ${name}`,
    `+++ ${name} (updated)`,
    `@@ line ${all[0]?.line ?? 1} @@`,
    ...all.map((op) => `${op.kind}${op.text}`),
  ];
}
