import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { compileLinearPattern, UnsupportedPatternError } from '../../../common/linear-regexp.js';
import type { JsonSchema, JsonValue } from '../../../common/json.js';
import { parseCatalogYaml } from '../catalog/catalog-yaml.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import { UserSchemaCompiler } from '../catalog/catalog-schemas.js';
import { CATALOG_FILES } from '../catalog/catalog-files.js';
import { TESTS_DIR, type Workspace } from '../catalog/workspace.js';
import { FileReadError, readRegularFileText } from '../files/regular-file.js';
import { errorMessage } from '../../../common/error-message.js';
import { guessName, shownName, type NameGuess, withoutTypoEchoes, zodFieldNames } from '../did-you-mean.js';
import { TestCaseSchema, TestFileSchema, type TestCaseSpec, type TextMatch } from './test-file-schema.js';
import { testEnvironment, testEnvironmentNames, type TestEnvironment } from './test-environment.js';

/** Largest test file read. */
const MAX_TEST_FILE_BYTES = 8 << 20;

/**
 * One case, ready to run: its spec with the file's defaults applied, and where it is written.
 * `id` is unique in a suite (`file-stem/case-slug`) and names its transcript.
 */
export interface LoadedCase {
  id: string;
  name: string;
  /** The test file, relative to the workspace (forward slashes). */
  file: string;
  line: number;
  /** Position of the case in its file's `cases` list. */
  index: number;
  spec: TestCaseSpec;
}

/** A problem in a test file: the file, line, column and field (JSON pointer), what is wrong, the fix. */
export type TestProblem = CatalogProblem;

/**
 * The test files `paths` name (files, or folders searched for `*.yaml` / `*.yml`), relative to
 * `cwd`; with none, the workspace's tests/ folder. A path that does not exist is a problem. The
 * workspace's own folder given as a path means its tests/ folder (its catalogs are not tests), and
 * a folder below that holds catalogs of its own is another workspace: it is not searched, and is
 * named in `otherWorkspaces` so the caller can say how to test it.
 */
export function findTestFiles(
  root: string,
  cwd: string,
  paths: readonly string[],
): { files: string[]; missing: string[]; otherWorkspaces: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const otherWorkspaces: string[] = [];
  const isWorkspace = (dir: string) =>
    CATALOG_FILES.some((file) => statSync(path.join(dir, file), { throwIfNoEntry: false })?.isFile());
  const walk = (dir: string) => {
    if (path.resolve(dir) !== path.resolve(root) && isWorkspace(dir)) {
      otherWorkspaces.push(dir);
      return;
    }
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.ya?ml$/i.test(entry.name)) files.push(full);
    }
  };
  const testsFolder = path.join(root, TESTS_DIR);
  const given = paths.length > 0 ? paths.map((p) => path.resolve(cwd, p)) : [testsFolder];
  for (const target of given) {
    const stat = statSync(target, { throwIfNoEntry: false });
    if (!stat) missing.push(target);
    else if (stat.isDirectory() && path.resolve(target) === path.resolve(root)) {
      if (statSync(testsFolder, { throwIfNoEntry: false })?.isDirectory()) walk(testsFolder);
    } else if (stat.isDirectory()) walk(target);
    else files.push(target);
  }
  return { files: [...new Set(files)], missing, otherWorkspaces: [...new Set(otherWorkspaces)] };
}

/** `Summarises the notes!` -> `summarises-the-notes`. */
function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'case'
  );
}

/**
 * Reads one test file into its cases, adding a problem (file, line, field, fix) for each mistake,
 * the file's problems in the order of their lines.
 */
export async function loadTestFile(
  workspace: Workspace,
  absolute: string,
  problems: TestProblem[],
  taken: Set<string> = new Set(),
): Promise<LoadedCase[]> {
  const start = problems.length;
  const cases = await readTestFile(workspace, absolute, problems, taken);
  const mine = problems.splice(start).sort((a, b) => a.line - b.line || a.column - b.column);
  problems.push(...mine);
  return cases;
}

async function readTestFile(
  workspace: Workspace,
  absolute: string,
  problems: TestProblem[],
  taken: Set<string>,
): Promise<LoadedCase[]> {
  const relative = path.relative(workspace.root, absolute);
  const file = (relative.startsWith('..') ? absolute : relative).split(path.sep).join('/');
  let text: string;
  try {
    text = await readRegularFileText(absolute, MAX_TEST_FILE_BYTES, 'test file');
  } catch (error) {
    problems.push({
      severity: 'error',
      file,
      pointer: '',
      line: 1,
      column: 1,
      message: error instanceof FileReadError ? error.message : `cannot read the test file: ${errorMessage(error)}`,
      fix: 'Make the test file a readable regular file.',
    });
    return [];
  }
  const located = parseCatalogYaml(file, text, problems);
  if (!located) return [];
  const raw: unknown = located.document.toJS();
  const at = (segments: (string | number)[], message: string, fix: string, options?: { preferKey?: boolean }) =>
    problems.push(located.problem('error', segments, message, fix, options));
  const zodProblems = (schema: z.ZodType, data: unknown, issues: z.core.$ZodIssue[], prefix: (string | number)[]) => {
    for (const issue of withoutTypoEchoes(schema, data, issues).slice(0, 5)) {
      const segments = [...prefix, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))];
      const where = segments.length ? shownName(segments.join('.')) : 'the file';
      if (issue.code === 'unrecognized_keys') {
        const known = zodFieldNames(schema, issue.path);
        for (const key of issue.keys) {
          const shown = shownName(key);
          const typo = guessName(
            key,
            known,
            'key',
            `Remove "${shown}" or correct its name (docs/testing.md lists the fields).`,
          );
          at([...segments, key], `${where}: unknown field "${shown}"${typo.meant}`, typo.fix, { preferKey: true });
        }
      } else if (issue.code === 'invalid_union' && formOf(segments) !== undefined)
        at(segments, `${where}: not one of the forms this field takes`, `Write ${formOf(segments)}.`);
      else at(segments, `${where}: ${issue.message}`, fixFor(issue));
    }
  };
  const parsedTop = TestFileSchema.safeParse(raw ?? {});
  // A file whose only faults are unknown fields is checked on as if they were not there, so one
  // pass names every problem (a field's typo and a tool's); none of its cases runs.
  const top = parsedTop.success
    ? parsedTop
    : TestFileSchema.safeParse(withoutUnknownFields(raw ?? {}, parsedTop.error.issues));
  if (!parsedTop.success) zodProblems(TestFileSchema, raw ?? {}, parsedTop.error.issues, []);
  if (!top.success) return [];
  const reportOnly = !parsedTop.success;
  const defaults = top.data.defaults ?? {};
  const cases: LoadedCase[] = [];
  const names = new Map<string, number>();
  const stem = slug(path.basename(file).replace(/\.ya?ml$/i, ''));
  top.data.cases.forEach((rawCase, index) => {
    const merged = { ...defaults, ...rawCase };
    const line = located.locate(['cases', index]).line;
    const name = typeof rawCase['name'] === 'string' ? rawCase['name'] : undefined;
    const first = name === undefined ? undefined : names.get(name);
    if (name !== undefined && first !== undefined) {
      at(
        ['cases', index, 'name'],
        `two cases are named "${name}"`,
        `Rename this case (the first is on line ${first}); a name identifies its result and its transcript.`,
      );
      return;
    }
    if (name !== undefined) names.set(name, line);
    const strict = TestCaseSchema.safeParse(merged);
    if (!strict.success) zodProblems(TestCaseSchema, merged, strict.error.issues, ['cases', index]);
    const parsed = strict.success
      ? strict
      : TestCaseSchema.safeParse(withoutUnknownFields(merged, strict.error.issues));
    if (!parsed.success) return;
    const spec = parsed.data;
    const before = problems.length;
    checkCase(workspace, spec, (segments, message, fix) => at(['cases', index, ...segments], message, fix));
    if (problems.length > before || !strict.success || reportOnly) return;
    // Two names with the same slug ("A b" and "a-b") still get transcripts of their own.
    let id = `${stem}/${slug(spec.name)}`;
    for (let n = 2; taken.has(id); n += 1) id = `${stem}/${slug(spec.name)}-${n}`;
    taken.add(id);
    cases.push({ id, name: spec.name, file, line, index, spec });
  });
  return cases;
}

/**
 * `data` without the fields zod found unknown, when those are all its `issues` say; else
 * undefined (a wrong type or a missing field leaves nothing to check on). `data` is not changed.
 */
function withoutUnknownFields(data: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  if (!issues.every((issue) => issue.code === 'unrecognized_keys')) return undefined;
  const copy: unknown = structuredClone(data);
  for (const issue of issues) {
    let target: unknown = copy;
    for (const part of issue.path) target = (target as Record<PropertyKey, unknown> | undefined)?.[part];
    if (typeof target !== 'object' || target === null) continue;
    for (const key of issue.keys) Reflect.deleteProperty(target, key);
  }
  return copy;
}

/** The forms of a field that takes one of several, in words, by the field's name. */
const FORMS: Record<string, string> = {
  approve: 'deny, auto, ask-as-deny, or { default: approve|deny, tools: { ALIAS: approve|deny } }',
  model: 'a models.yaml alias, { replies: [...] }, { recording: FILE }, { alias: NAME } or { environment: MODEL }',
  final: 'a text, or { equals, contains, matches, schema }',
  error: 'a text, or { equals, contains, matches, schema }',
  logs: 'a text, or { equals, contains, matches, schema }',
  output: 'a text, or { equals, contains, matches, schema }',
  check: 'a check name or a list of them',
};

function formOf(segments: readonly (string | number)[]): string | undefined {
  const last = segments.at(-1);
  if (segments.at(-2) === 'counts') return 'a number, or { min, max }';
  return typeof last === 'string' && Object.hasOwn(FORMS, last) ? FORMS[last] : undefined;
}

function fixFor(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `Write ${issue.expected === 'object' ? 'a mapping of fields' : /^[aeiou]/.test(issue.expected) ? `an ${issue.expected}` : `a ${issue.expected}`} here.`;
    case 'invalid_union':
      return 'Use one of the forms docs/testing.md shows for this field.';
    case 'invalid_value':
      return `Use one of: ${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
    case 'too_small':
      return 'Give a larger value (or a non-empty text).';
    default:
      return 'See docs/testing.md for the field.';
  }
}

const schemaCompiler = new UserSchemaCompiler();

/** A JSON Schema compiled for an assertion (cached per schema text). */
export function compileAssertionSchema(schema: JsonSchema) {
  return schemaCompiler.compile(schema);
}

type Report = (segments: (string | number)[], message: string, fix: string) => void;

/** Every name a case uses exists, and every pattern and schema compiles. */
function checkCase(workspace: Workspace, spec: TestCaseSpec, report: Report): void {
  const agent = path.resolve(workspace.root, spec.agent);
  if (!statSync(agent, { throwIfNoEntry: false })?.isFile()) {
    const typo = agentGuess(workspace, spec.agent);
    report(['agent'], `agent "${shownName(spec.agent)}" does not exist in the workspace${typo.meant}`, typo.fix);
  }
  let environment: TestEnvironment | undefined;
  if (spec.environment !== undefined) {
    environment = testEnvironment(spec.environment);
    if (!environment) {
      const known = testEnvironmentNames();
      const typo = guessName(spec.environment, known, 'value', `Known environments: ${known.join(', ') || 'none'}.`);
      report(['environment'], `no test environment is named "${shownName(spec.environment)}"${typo.meant}`, typo.fix);
    }
  }
  for (const slot of Object.keys(spec.injections ?? {})) {
    if (!environment) {
      if (spec.environment === undefined)
        report(['injections'], 'injections need an environment', 'Name the test environment with `environment:`.');
      break;
    }
    if (!Object.hasOwn(environment.injectionSlots, slot)) {
      const slots = Object.keys(environment.injectionSlots);
      const typo = guessName(slot, slots, 'key', `Its slots: ${slots.join(', ') || 'none'}.`);
      report(
        ['injections', slot],
        `environment "${environment.name}" has no injection slot "${shownName(slot)}"${typo.meant}`,
        typo.fix,
      );
    }
  }
  const model = spec.model;
  const alias = typeof model === 'string' ? model : 'alias' in model ? model.alias : undefined;
  if (alias !== undefined && !workspace.models.get(alias)) {
    const known = workspace.models.list().map((m) => m.alias);
    const typo = guessName(alias, known, 'value', `models.yaml defines ${known.join(', ') || 'none'}.`);
    report(
      typeof model === 'string' ? ['model'] : ['model', 'alias'],
      `model "${shownName(alias)}" is not in models.yaml${typo.meant}`,
      typo.fix,
    );
  }
  if (typeof model === 'object' && 'recording' in model) {
    if (!statSync(path.resolve(workspace.root, model.recording), { throwIfNoEntry: false })?.isFile())
      report(
        ['model', 'recording'],
        `recording "${model.recording}" does not exist`,
        'Give the path of a transcript (a .jsonl file) relative to the workspace, e.g. recordings/NAME.jsonl.',
      );
  }
  if (typeof model === 'object' && 'environment' in model) {
    if (spec.environment === undefined)
      report(
        ['model', 'environment'],
        'an environment model needs the case to name its environment',
        'Add `environment: NAME` to the case.',
      );
    else if (environment && !Object.hasOwn(environment.models, model.environment)) {
      const known = Object.keys(environment.models);
      const typo = guessName(model.environment, known, 'value', `Its models: ${known.join(', ') || 'none'}.`);
      report(
        ['model', 'environment'],
        `environment "${environment.name}" has no model "${shownName(model.environment)}"${typo.meant}`,
        typo.fix,
      );
    }
  }
  const tools = new Set([
    ...workspace.tools.list().map((tool) => tool.alias),
    ...(environment?.tools.map((tool) => tool.alias) ?? []),
  ]);
  const knownTool = (name: string, segments: (string | number)[]) => {
    if (tools.has(name)) return;
    const typo = guessName(name, tools, segments.at(-1) === name ? 'key' : 'value', 'Correct the tool alias.');
    report(
      segments,
      `tool "${shownName(name)}" is not in this case's catalog (tools.yaml, the builtins${environment ? ` and environment "${environment.name}"` : ''})${typo.meant}`,
      typo.fix,
    );
  };
  if (typeof model === 'object' && 'replies' in model)
    model.replies.forEach((reply, r) =>
      reply.calls?.forEach((call, c) => knownTool(call.name, ['model', 'replies', r, 'calls', c, 'name'])),
    );
  if (spec.approve !== undefined && typeof spec.approve === 'object')
    for (const name of Object.keys(spec.approve.tools ?? {})) knownTool(name, ['approve', 'tools', name]);
  const expect = spec.expect;
  if (!expect) return;
  expect.calls?.forEach((call, index) => {
    knownTool(call.tool, ['expect', 'calls', index, 'tool']);
    if (call.arguments_schema)
      checkSchema(call.arguments_schema, ['expect', 'calls', index, 'arguments_schema'], report);
    for (const [key, pattern] of Object.entries(call.arguments_match ?? {}))
      checkPattern(pattern, ['expect', 'calls', index, 'arguments_match', key], report);
    if (call.output !== undefined) checkTextMatch(call.output, ['expect', 'calls', index, 'output'], report);
  });
  for (const name of Object.keys(expect.counts ?? {})) knownTool(name, ['expect', 'counts', name]);
  expect.not_called?.forEach((name, index) => knownTool(name, ['expect', 'not_called', index]));
  for (const field of ['error', 'final', 'logs'] as const) {
    const match = expect[field];
    if (match !== undefined) checkTextMatch(match, ['expect', field], report);
  }
  const checks = expect.check === undefined ? [] : Array.isArray(expect.check) ? expect.check : [expect.check];
  checks.forEach((name, index) => {
    const segments = Array.isArray(expect.check) ? ['expect', 'check', index] : ['expect', 'check'];
    if (!environment) {
      if (spec.environment === undefined)
        report(segments, `check "${name}" needs an environment`, 'Name the test environment with `environment:`.');
    } else if (!Object.hasOwn(environment.checks, name)) {
      const known = Object.keys(environment.checks);
      const typo = guessName(name, known, 'value', `Its checks: ${known.slice(0, 20).join(', ') || 'none'}.`);
      report(segments, `environment "${environment.name}" has no check "${shownName(name)}"${typo.meant}`, typo.fix);
    }
  });
  expect.state?.forEach((state, index) => {
    if (spec.environment === undefined)
      report(
        ['expect', 'state', index],
        'a state check needs an environment',
        'Name the test environment with `environment:`.',
      );
    if (state.pointer !== '' && !state.pointer.startsWith('/'))
      report(
        ['expect', 'state', index, 'pointer'],
        `"${state.pointer}" is not a JSON pointer`,
        `Start it with "/", e.g. "/${state.pointer}".`,
      );
    if (state.equals === undefined && state.schema === undefined)
      report(
        ['expect', 'state', index],
        'a state check needs `equals` or `schema`',
        'Add `equals: VALUE` or `schema: {...}`.',
      );
    if (state.schema) checkSchema(state.schema, ['expect', 'state', index, 'schema'], report);
  });
}

function agentGuess(workspace: Workspace, agent: string): NameGuess {
  const agentsDir = path.join(workspace.root, 'agents');
  const known = statSync(agentsDir, { throwIfNoEntry: false })?.isDirectory()
    ? readdirSync(agentsDir)
        .filter((name) => name.endsWith('.lua'))
        .map((name) => `agents/${name}`)
    : [];
  return guessName(
    agent,
    known,
    'value',
    `Give the script's path relative to the workspace${known.length ? ` (agents/ has ${known.slice(0, 10).join(', ')})` : ''}.`,
  );
}

function checkTextMatch(match: TextMatch, segments: (string | number)[], report: Report): void {
  if (typeof match === 'string') return;
  if (match.matches !== undefined) checkPattern(match.matches, [...segments, 'matches'], report);
  if (match.schema !== undefined) checkSchema(match.schema, [...segments, 'schema'], report);
  if (Object.keys(match).length === 0)
    report(segments, 'an empty text assertion checks nothing', 'Give equals, contains, matches or schema.');
}

function checkPattern(pattern: string, segments: (string | number)[], report: Report): void {
  try {
    compileLinearPattern(pattern);
  } catch (error) {
    if (error instanceof UnsupportedPatternError) report(segments, error.message, error.fix);
    else throw error;
  }
}

function checkSchema(schema: Record<string, JsonValue>, segments: (string | number)[], report: Report): void {
  try {
    compileAssertionSchema(schema);
  } catch (error) {
    report(segments, `the JSON Schema does not compile: ${errorMessage(error)}`, 'Fix the schema (draft 2020-12).');
  }
}
