/** Reads and edits the approval rules file's text: YAML in, checked rules or problems naming line and field out. */
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import {
  CONDITION_TESTS,
  RULES_FILE_VERSION,
  rulesFileSchema,
  ruleSchema,
  type Condition,
  type Marking,
  type Rule,
  type RulesFile,
} from '../../../common/approval-rules.js';
import { compileLinearPattern } from '../../../common/linear-regexp.js';
import { errorMessage } from '../../../common/error-message.js';
import { hasProtoKey } from '../../../common/json.js';
import { guessName, shownName, withoutTypoEchoes, zodFieldNames } from '../did-you-mean.js';

/** Longest glob accepted (it becomes an RE2 program). */
const MAX_GLOB_LENGTH = 512;

/** One thing wrong with the file: where (line, field) and the fix. */
export interface RulesProblem {
  line?: number;
  /** The field, as a path: `rules[2].when[0].pattern`. */
  field?: string;
  message: string;
}

/** The outcome of reading the file's text: rules, or problems (then no rule applies and every call asks). */
export type ParsedRules = { ok: true; file: RulesFile } | { ok: false; problems: RulesProblem[]; newer?: number };

/** An empty file's contents. */
export function emptyRules(): RulesFile {
  return { version: RULES_FILE_VERSION, rules: [] };
}

/** The text of a new rules file, with a comment saying what it is. */
const NEW_FILE_TEXT = `# PromptForge approval rules (docs/catalogs.md, "Approval rules").
# Made by you, kept in your config folder, never in a workspace. Edit with \`promptforge rules\` or by hand.
version: ${RULES_FILE_VERSION}
rules: []
`;

/** Parses and checks the rules file's text. */
export function parseRulesText(text: string): ParsedRules {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0)
    return {
      ok: false,
      problems: document.errors.map((error) => ({
        line: lines.linePos(error.pos[0]).line,
        message: `not valid YAML: ${error.message.split('\n')[0]}; fix the YAML syntax there`,
      })),
    };
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [{ message: `cannot read the YAML: ${errorMessage(error)}` }] };
  }
  if (value === null || value === undefined) return { ok: true, file: emptyRules() };
  if (hasProtoKey(value))
    return {
      ok: false,
      problems: [{ message: 'a key named "__proto__" is not allowed anywhere in the rules file; remove it' }],
    };
  const version = (value as { version?: unknown }).version;
  if (typeof version === 'number' && version > RULES_FILE_VERSION)
    return {
      ok: false,
      newer: version,
      problems: [
        {
          ...placed(lineOf(document, lines, ['version']), 'version'),
          message: `the file is version ${version}, written by a newer PromptForge; this one reads version ${RULES_FILE_VERSION}. Update PromptForge (until then no rule applies and every call asks)`,
        },
      ],
    };
  const RulesFileSchema = rulesFileSchema();
  const parsed = RulesFileSchema.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      problems: withoutTypoEchoes(RulesFileSchema, value, parsed.error.issues).map((issue) => ({
        ...placed(
          lineOf(document, lines, issue.path as (string | number)[]),
          fieldName(issue.path as (string | number)[]),
        ),
        message: issueMessage(issue, RulesFileSchema),
      })),
    };
  const problems = checkMeaning(parsed.data).map(({ path, ...problem }) => ({
    ...problem,
    ...placed(lineOf(document, lines, path), fieldName(path)),
  }));
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, file: parsed.data };
}

/**
 * The problems of one rule on its own (its form, one target, one test per condition, patterns RE2
 * runs, hosts that are hosts), as the file would report them, with fields named from the rule
 * (`when[0].pattern`): for a rule a person is still editing. Empty when the rule could be saved.
 */
export function ruleProblems(rule: unknown): RulesProblem[] {
  if (hasProtoKey(rule)) return [{ message: 'a key named "__proto__" is not allowed in a rule; remove it' }];
  const RuleSchema = ruleSchema();
  const parsed = RuleSchema.safeParse(rule);
  if (!parsed.success)
    return withoutTypoEchoes(RuleSchema, rule, parsed.error.issues).map((issue) => ({
      ...placed(undefined, fieldName(issue.path as (string | number)[])),
      message: issueMessage(issue, RuleSchema),
    }));
  return checkMeaning({ version: RULES_FILE_VERSION, rules: [parsed.data] }).map((problem) => {
    const field = fieldName(problem.path.slice(2));
    return { ...(field !== undefined && { field }), message: problem.message };
  });
}

/** A problem as one line: `approval-rules.yaml:12: rules[2].when[0].pattern: ...`. */
export function formatRulesProblem(file: string, problem: RulesProblem): string {
  return `${file}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.field ? `${problem.field}: ` : ''}${problem.message}`;
}

function issueMessage(issue: z.core.$ZodIssue, schema: z.ZodType): string {
  if (issue.code === 'unrecognized_keys') {
    const known = zodFieldNames(schema, issue.path);
    const typos: string[] = [];
    const far: string[] = [];
    for (const key of issue.keys) {
      const typo = guessName(key, known, 'key', '');
      if (typo.guess === undefined) far.push(`"${shownName(key)}"`);
      else typos.push(`unknown field "${shownName(key)}"${typo.meant} rename it to "${shownName(typo.guess)}"`);
    }
    if (far.length > 0)
      typos.push(
        `unknown field${far.length > 1 ? 's' : ''} ${far.join(', ')}; remove ${far.length > 1 ? 'them' : 'it'} (see schemas/approval-rules.schema.json)`,
      );
    return typos.join('; ');
  }
  if (issue.code === 'invalid_value') return `${issue.message}; use one of ${issue.values.map(String).join(', ')}`;
  return `${issue.message}; see schemas/approval-rules.schema.json for the field's form`;
}

interface MeaningProblem {
  path: (string | number)[];
  message: string;
}

/** What the schema cannot say: one target per entry, one test per condition, patterns RE2 runs, unique ids. */
function checkMeaning(file: RulesFile): MeaningProblem[] {
  const problems: MeaningProblem[] = [];
  const ids = new Map<string, number>();
  const entries: [string, (Rule | Marking)[]][] = [
    ['rules', file.rules ?? []],
    ['markings', file.markings ?? []],
  ];
  for (const [list, items] of entries)
    items.forEach((entry, index) => {
      const at = (...rest: (string | number)[]) => [list, index, ...rest];
      const key = `${list}:${entry.id}`;
      if (ids.has(key))
        problems.push({
          path: at('id'),
          message: `id "${entry.id}" is used twice (also ${list}[${ids.get(key)}]); give each entry its own id`,
        });
      ids.set(key, index);
      if (entry.tools !== undefined && entry.tools.length > MAX_GLOB_LENGTH)
        problems.push({ path: at('tools'), message: `the glob is over ${MAX_GLOB_LENGTH} characters; shorten it` });
      const targets = (['tool', 'tools', 'server'] as const).filter((name) => entry[name] !== undefined);
      if (targets.length !== 1)
        problems.push({
          path: at(),
          message: `give exactly one of "tool" (an alias), "tools" (a glob of aliases) or "server" (an MCP server), not ${targets.length === 0 ? 'none' : targets.join(' and ')}`,
        });
      if (entry.workspace !== '*' && !entry.workspace.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(entry.workspace))
        problems.push({
          path: at('workspace'),
          message: `"${entry.workspace}" is not an absolute path; give the workspace's full real path, or "*" for every workspace`,
        });
      if ('when' in entry)
        (entry.when ?? []).forEach((condition, c) => problems.push(...conditionProblems(condition, at('when', c))));
      if ('allowTainted' in entry && entry.allowTainted !== undefined && entry.decision !== 'allow')
        problems.push({
          path: at('allowTainted'),
          message: 'only an allow rule can let tainted sinks through; remove it',
        });
    });
  return problems;
}

function conditionProblems(condition: Condition, path: (string | number)[]): MeaningProblem[] {
  const tests = CONDITION_TESTS.filter((test) => condition[test] !== undefined);
  if (tests.length !== 1)
    return [
      {
        path,
        message: `a condition holds exactly one test (${CONDITION_TESTS.join(', ')}), not ${tests.length === 0 ? 'none' : tests.join(' and ')}; write two conditions to test twice`,
      },
    ];
  if (condition.pattern !== undefined) {
    try {
      compileLinearPattern(condition.pattern);
    } catch (error) {
      return [
        {
          path: [...path, 'pattern'],
          message: `RE2 cannot run this pattern: ${errorMessage(error)}`,
        },
      ];
    }
  }
  if (condition.glob !== undefined && condition.glob.length > MAX_GLOB_LENGTH)
    return [{ path: [...path, 'glob'], message: `the glob is over ${MAX_GLOB_LENGTH} characters; shorten it` }];
  for (const [index, host] of (condition.urlHost ?? []).entries())
    if (!URL.canParse(`http://${host.startsWith('*.') ? host.slice(2) : host}`) || /[/?#@\\]/.test(host))
      return [
        {
          path: [...path, 'urlHost', index],
          message: `"${host}" is not a host name; write a host (docs.example.com), a subdomain wildcard (*.example.com) or host:port`,
        },
      ];
  if (condition.inFolder !== undefined && condition.inFolder.includes('\0'))
    return [{ path: [...path, 'inFolder'], message: 'the folder contains a NUL byte; remove it' }];
  return [];
}

/** Where a problem is, as far as it is known: a line and a field only when there is one. */
function placed(line: number | undefined, field: string | undefined): Pick<RulesProblem, 'line' | 'field'> {
  return { ...(line !== undefined && { line }), ...(field !== undefined && { field }) };
}

function fieldName(path: (string | number)[]): string | undefined {
  if (path.length === 0) return undefined;
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/** The line of the deepest node of `path` the document has. */
function lineOf(document: Document, lines: LineCounter, path: (string | number)[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) return lines.linePos(range[0]).line;
  }
  return undefined;
}

/** A YAML document of the file's text to edit; a new one when there is no text. */
export function editableDocument(text: string | undefined): Document {
  const document = parseDocument(text ?? NEW_FILE_TEXT, { uniqueKeys: true });
  if (document.errors.length > 0) throw new Error(document.errors[0]!.message);
  if (!isMap(document.contents)) return parseDocument(NEW_FILE_TEXT);
  return document;
}

/** Puts `rule` in place of the rule at `index` (comments of other rules stay). */
export function replaceRuleIn(document: Document, index: number, rule: Rule): void {
  document.setIn(['rules', index], document.createNode(withoutUndefined(rule)));
}

/** Appends `rule` under `rules:` (made when missing). */
export function addRuleTo(document: Document, rule: Rule): void {
  if (!isSeq(document.get('rules', true))) document.set('rules', document.createNode([]));
  document.addIn(['rules'], document.createNode(withoutUndefined(rule)));
}

/** The index of rule `id` in the document, or -1. */
export function ruleIndex(document: Document, id: string): number {
  const rules = document.get('rules', true);
  if (!isSeq(rules)) return -1;
  return rules.items.findIndex((item) => isMap(item) && item.get('id') === id);
}

function withoutUndefined<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
