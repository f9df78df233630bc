import { isMap, isPair, isScalar, isSeq, LineCounter, type Document, type Node as YamlNode } from 'yaml';
import { toPointer } from '../../../common/json-pointer.js';
import type { CatalogProblemInfo } from '../../../common/studio-schemas.js';

/**
 * One thing wrong (or worth a warning) in a workspace file, as the contract defines it
 * (CatalogProblemSchema). Every problem names the file (workspace-relative, forward slashes), the
 * JSON pointer inside it (`` for the whole file), the 1-based line and column of the node (or of
 * its nearest existing parent), what is wrong and a fix, so the studio can underline it and the
 * CLI can print it. `error`: the entry (or file) is dropped; `warning`: it loads, but deserves a look.
 */
export type CatalogProblem = CatalogProblemInfo;

/** Formats a problem as `file:line:column: severity: message (fix)`, the CLI's one-line form. */
export function formatProblem(problem: CatalogProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.severity}: ${problem.message} (fix: ${problem.fix})`;
}

/**
 * A parsed YAML file plus what is needed to turn a JSON pointer into a line and column, so every
 * problem can point at the exact node.
 */
export class LocatedYaml {
  constructor(
    readonly file: string,
    readonly document: Document,
    readonly lineCounter: LineCounter,
  ) {}

  /** Position of the node at `segments`, or of its deepest existing ancestor. */
  locate(segments: readonly (string | number)[], preferKey = false): { line: number; column: number } {
    let node: unknown = this.document.contents;
    let offset = rangeStart(node) ?? 0;
    for (let index = 0; index < segments.length; index += 1) {
      const segment = segments[index];
      const last = index === segments.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && scalarKey(item.key) === String(segment));
        if (!pair) break;
        const keyStart = rangeStart(pair.key);
        const valueStart = rangeStart(pair.value);
        if (last && preferKey && keyStart !== undefined) {
          offset = keyStart;
          break;
        }
        if (valueStart !== undefined) offset = valueStart;
        else if (keyStart !== undefined) offset = keyStart;
        node = pair.value;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)];
        const start = rangeStart(item);
        if (item === undefined || start === undefined) break;
        offset = start;
        node = item;
      } else {
        break;
      }
    }
    const position = this.lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  }

  /** 1-based line and column of a character offset. */
  position(offset: number): { line: number; column: number } {
    const position = this.lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  }

  /** A problem at `segments` (the deepest existing node on that path). */
  problem(
    severity: CatalogProblem['severity'],
    segments: readonly (string | number)[],
    message: string,
    fix: string,
    options: { preferKey?: boolean; offset?: number } = {},
  ): CatalogProblem {
    const { line, column } =
      options.offset !== undefined ? this.position(options.offset) : this.locate(segments, options.preferKey ?? false);
    return { severity, file: this.file, pointer: toPointer(segments), line, column, message, fix };
  }
}

function rangeStart(node: unknown): number | undefined {
  if (node && typeof node === 'object' && 'range' in node) {
    const range = (node as YamlNode).range;
    if (range) return range[0];
  }
  return undefined;
}

/** The string form of a mapping key (`undefined` for complex keys). */
export function scalarKey(key: unknown): string | undefined {
  if (isScalar(key)) return key.value === null ? 'null' : String(key.value);
  if (typeof key === 'string') return key;
  return undefined;
}
