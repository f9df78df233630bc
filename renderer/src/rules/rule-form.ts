/**
 * The rule form's logic (the card's "Always allow…" and the Rules view's Edit): a rule's argument
 * conditions as rows a person can change (any value, this value, one of, glob, pattern, a path
 * inside a folder, a URL on a host), and the rule they make. Pure: the core checks the rule and
 * says it in words (`rules:describe`); nothing here decides what a rule allows.
 */
import type { Condition, Rule, ServerIdentity } from '../../../common/approval-rules.js';
import { pointerSegments, toPointer } from '../../../common/json-pointer.js';
import type { RuleDraft } from '../../../common/rules-schemas.js';

/** What a row tests: the condition tests, and `any` (no condition on that argument). */
export const CONDITION_KINDS = ['any', 'equals', 'oneOf', 'glob', 'pattern', 'inFolder', 'urlHost'] as const;
export type ConditionKind = (typeof CONDITION_KINDS)[number];

/** Each kind in words, for the row's choice. */
export const CONDITION_KIND_LABELS: Record<ConditionKind, string> = {
  any: 'any value',
  equals: 'exactly this value (JSON)',
  oneOf: 'one of these (one per line)',
  glob: 'matches a glob (* and ?)',
  pattern: 'wholly matches a pattern (RE2)',
  inFolder: 'a path inside this workspace folder',
  urlHost: 'a URL on these hosts (one per line)',
};

/** One argument's condition as the form edits it. */
export interface ConditionRow {
  pointer: string;
  kind: ConditionKind;
  /** The text of the field (JSON for `equals`, lines for `oneOf` and `urlHost`). */
  text: string;
  /** The call's value at `pointer` (for an "Always allow…" form): what a new test starts from. */
  value?: unknown;
}

/** A row for each condition of `rule` (and, for a call, each argument without one as `any`). */
export function rowsOf(rule: Pick<Rule, 'when'>, args?: Record<string, unknown>): ConditionRow[] {
  const rows = (rule.when ?? []).map((condition): ConditionRow => {
    const value = args === undefined ? undefined : valueAt(args, condition.pointer);
    return { pointer: condition.pointer, ...kindAndText(condition), ...(value !== undefined && { value }) };
  });
  for (const [key, value] of Object.entries(args ?? {})) {
    const pointer = toPointer([key]);
    if (!rows.some((row) => row.pointer === pointer)) rows.push({ pointer, kind: 'any', text: '', value });
  }
  return rows;
}

function kindAndText(condition: Condition): { kind: ConditionKind; text: string } {
  if (condition.equals !== undefined) return { kind: 'equals', text: JSON.stringify(condition.equals) };
  if (condition.oneOf !== undefined)
    return {
      kind: 'oneOf',
      text: condition.oneOf.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n'),
    };
  if (condition.glob !== undefined) return { kind: 'glob', text: condition.glob };
  if (condition.pattern !== undefined) return { kind: 'pattern', text: condition.pattern };
  if (condition.inFolder !== undefined) return { kind: 'inFolder', text: condition.inFolder };
  if (condition.urlHost !== undefined) return { kind: 'urlHost', text: condition.urlHost.join('\n') };
  return { kind: 'any', text: '' };
}

/**
 * What a row's field starts with when the person picks `kind`: the call's value for `equals`, `oneOf`
 * and `glob`, that value with the pattern's special characters escaped for `pattern`, and the
 * core's suggestion (a URL's host, a path's folder) for the others.
 */
export function startText(kind: ConditionKind, row: ConditionRow, suggestion?: Condition): string {
  const value = row.value;
  const asText = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  switch (kind) {
    case 'any':
      return '';
    case 'equals':
      return value === undefined ? '' : JSON.stringify(value);
    case 'oneOf':
    case 'glob':
      return asText;
    case 'pattern':
      return asText.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
    case 'inFolder':
      return suggestion?.inFolder ?? '';
    case 'urlHost':
      return suggestion?.urlHost?.join('\n') ?? '';
  }
}

/** The condition a row makes, or why it cannot make one yet (then the rule is not sent). */
export function conditionOf(row: ConditionRow): { ok: true; condition?: Condition } | { ok: false; problem: string } {
  const { pointer } = row;
  const lines = row.text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  switch (row.kind) {
    case 'any':
      return { ok: true };
    case 'equals': {
      try {
        return { ok: true, condition: { pointer, equals: JSON.parse(row.text) as unknown } };
      } catch {
        return { ok: false, problem: `${pointer}: write the value as JSON (a text in double quotes, "like this")` };
      }
    }
    case 'oneOf': {
      if (lines.length === 0) return { ok: false, problem: `${pointer}: give at least one value, one per line` };
      // Texts stay texts; for an argument that is not a text, each line is a JSON value.
      const asJson = row.value !== undefined && typeof row.value !== 'string';
      const values: unknown[] = [];
      for (const line of lines) {
        if (!asJson) values.push(line);
        else
          try {
            values.push(JSON.parse(line) as unknown);
          } catch {
            return { ok: false, problem: `${pointer}: "${line}" is not a JSON value` };
          }
      }
      return { ok: true, condition: { pointer, oneOf: values } };
    }
    case 'glob':
    case 'pattern':
    case 'inFolder':
      if (row.text === '')
        return { ok: false, problem: `${pointer}: fill in the ${row.kind === 'inFolder' ? 'folder' : row.kind}` };
      return { ok: true, condition: { pointer, [row.kind]: row.text } };
    case 'urlHost': {
      const hosts = row.text
        .split(/[\n,]/)
        .map((host) => host.trim())
        .filter((host) => host !== '');
      if (hosts.length === 0)
        return { ok: false, problem: `${pointer}: give at least one host, such as docs.example.org` };
      return { ok: true, condition: { pointer, urlHost: hosts } };
    }
  }
}

/** Which tools a rule covers, as the form offers it. */
export type TargetChoice =
  { kind: 'tool'; alias: string } | { kind: 'server'; server: ServerIdentity } | { kind: 'tools'; glob: string };

/** The rule the form's fields make from `base` (its id, decision and marks), or the first problem. */
export function draftOf(
  base: RuleDraft,
  fields: { target: TargetChoice; workspace: string; rows: readonly ConditionRow[] },
): { ok: true; draft: RuleDraft } | { ok: false; problem: string } {
  const when: Condition[] = [];
  for (const row of fields.rows) {
    const made = conditionOf(row);
    if (!made.ok) return made;
    if (made.condition) when.push(made.condition);
  }
  const { tool: _tool, tools: _tools, server: _server, when: _when, ...rest } = base;
  const target =
    fields.target.kind === 'tool'
      ? { tool: fields.target.alias }
      : fields.target.kind === 'tools'
        ? { tools: fields.target.glob }
        : { server: fields.target.server };
  return { ok: true, draft: { ...rest, workspace: fields.workspace, ...target, ...(when.length > 0 && { when }) } };
}

/** The value at a JSON pointer of the call's arguments (own members only). */
function valueAt(args: Record<string, unknown>, pointer: string): unknown {
  let value: unknown = args;
  for (const segment of pointerSegments(pointer)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** A rule as the studio sends it: without the definitions it is confirmed on or its date (main keeps those). */
export function draftFromRule(rule: Rule): RuleDraft {
  const { confirmed: _confirmed, createdAt: _createdAt, ...draft } = rule;
  return draft;
}
