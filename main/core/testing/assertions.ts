import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import { pointerSegments } from '../../../common/json-pointer.js';
import { linearRegExp } from '../../../common/linear-regexp.js';
import { canonicalJson } from '../run/canonical-json.js';
import type { TestStep as Step } from '../../../common/test-schemas.js';
import { callStep, shown, type CaseTrace, type TracedCall } from './case-trace.js';
import { compileAssertionSchema } from './load-tests.js';
import type { CallMatch, CaseExpect, TextMatch } from './test-file-schema.js';
import type { EnvironmentCheckContext, TestEnvironment } from './test-environment.js';

/** One assertion that did not hold: which, what was expected, what happened, and where. */
export interface Failure {
  /** The assertion's field in the case, e.g. `expect.calls[2].arguments`. */
  field: string;
  expected: string;
  actual: string;
  /** The step where the run diverged from the expectation, when there is one. */
  step?: Step;
}

/** What the assertions read besides the trace. */
export interface AssertionContext {
  environment?: { definition: TestEnvironment; check: EnvironmentCheckContext };
  /** The round where a scripted model had no reply left. */
  exhaustedAt?: number;
}

/** Whether `text` meets `match`; a sentence saying why not, else undefined. */
function textMismatch(match: TextMatch, text: string | null): string | undefined {
  if (text === null) return 'there is no text';
  const spec = typeof match === 'string' ? { equals: match } : match;
  if (spec.equals !== undefined && text !== spec.equals) return `it is not ${shown(spec.equals)}`;
  const contains = spec.contains === undefined ? [] : Array.isArray(spec.contains) ? spec.contains : [spec.contains];
  for (const part of contains) if (!text.includes(part)) return `it does not contain ${shown(part)}`;
  if (spec.matches !== undefined && !linearRegExp(spec.matches).test(text))
    return `it does not match /${spec.matches}/`;
  if (spec.schema !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return 'it is not JSON, so it cannot match the schema';
    }
    const problem = schemaMismatch(spec.schema, value);
    if (problem) return problem;
  }
  return undefined;
}

function schemaMismatch(schema: JsonObject, value: unknown): string | undefined {
  const validate = compileAssertionSchema(schema);
  if (validate(value)) return undefined;
  const error = validate.errors?.[0];
  return error
    ? `${error.instancePath || 'the value'} ${error.message ?? 'does not match'}`
    : 'it does not match the schema';
}

function expectedText(match: TextMatch): string {
  if (typeof match === 'string') return shown(match);
  return Object.entries(match)
    .map(([key, value]) => `${key} ${key === 'matches' ? `/${String(value)}/` : shown(value as JsonValue)}`)
    .join(', ');
}

/** `actual` holds every field of `expected` with an equal value (objects compared the same way). */
function includes(actual: JsonValue | undefined, expected: JsonValue): boolean {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(expected).every(([key, value]) => includes(actual[key], value));
  }
  return actual !== undefined && canonicalJson(actual) === canonicalJson(expected);
}

function argumentAt(args: JsonObject, where: string): JsonValue | undefined {
  if (!where.startsWith('/')) return args[where];
  let node: JsonValue | undefined = args;
  for (const segment of pointerSegments(where)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isPlainObject(node)) node = node[segment];
    else return undefined;
  }
  return node;
}

/** Why `call` does not meet `match` (the first field that differs), else undefined. */
function callMismatch(
  match: CallMatch,
  call: TracedCall,
): { field: string; expected: string; actual: string } | undefined {
  if (call.alias !== match.tool) return { field: 'tool', expected: match.tool, actual: call.alias };
  const args = call.arguments;
  if (match.arguments !== undefined && canonicalJson(args) !== canonicalJson(match.arguments))
    return { field: 'arguments', expected: shown(match.arguments), actual: shown(args) };
  if (match.arguments_include !== undefined && !includes(args, match.arguments_include))
    return {
      field: 'arguments_include',
      expected: `arguments including ${shown(match.arguments_include)}`,
      actual: shown(args),
    };
  if (match.arguments_schema !== undefined) {
    const problem = schemaMismatch(match.arguments_schema, args);
    if (problem)
      return {
        field: 'arguments_schema',
        expected: 'arguments matching the schema',
        actual: `${shown(args)}: ${problem}`,
      };
  }
  for (const [where, pattern] of Object.entries(match.arguments_match ?? {})) {
    const value = argumentAt(args, where);
    const text = typeof value === 'string' ? value : value === undefined ? undefined : JSON.stringify(value);
    if (text === undefined || !linearRegExp(pattern).test(text))
      return {
        field: `arguments_match.${where}`,
        expected: `${where} matching /${pattern}/`,
        actual: text === undefined ? `no ${where} in ${shown(args)}` : shown(text),
      };
  }
  if (match.asked !== undefined && call.asked !== match.asked)
    return {
      field: 'asked',
      expected: match.asked ? 'asked for approval' : 'not asked',
      actual: call.asked ? 'asked' : 'not asked',
    };
  if (match.decision !== undefined && call.decision !== match.decision)
    return { field: 'decision', expected: match.decision, actual: call.decision ?? 'no decision' };
  if (match.tainted !== undefined && call.tainted !== match.tainted)
    return {
      field: 'tainted',
      expected: match.tainted ? 'tainted' : 'not tainted',
      actual: call.tainted ? 'tainted' : 'not tainted',
    };
  if (match.trust !== undefined && call.trust !== match.trust)
    return {
      field: 'trust',
      expected: match.trust,
      actual: call.trust ?? `no output (${call.outcome ?? 'unfinished'})`,
    };
  if (match.outcome !== undefined && call.outcome !== match.outcome)
    return {
      field: 'outcome',
      expected: match.outcome,
      actual: `${call.outcome ?? 'unfinished'}${call.output !== undefined ? `: ${shown(call.output)}` : ''}`,
    };
  if (match.output !== undefined) {
    const problem = textMismatch(match.output, call.output ?? null);
    if (problem)
      return {
        field: 'output',
        expected: expectedText(match.output),
        actual: `${shown(call.output ?? null)} (${problem})`,
      };
  }
  return undefined;
}

function describeCall(call: TracedCall): string {
  return `${call.alias}(${shown(call.arguments)})`;
}

/** Checks every assertion of `expect` against the run; empty when all hold. */
export function evaluate(expect: CaseExpect, trace: CaseTrace, context: AssertionContext = {}): Failure[] {
  const failures: Failure[] = [];
  const end = trace.end;
  const endStep: Step | undefined = end && { seq: end.seq };
  // The step of an assertion on the run as a whole (state, checks, logs, cost, the tools offered).
  const afterRun: { step?: Step } = end ? { step: { seq: end.seq, afterRun: true } } : {};
  if (context.exhaustedAt !== undefined && expect.status !== 'error')
    failures.push({
      field: 'model.replies',
      expected: `a reply for every round the agent asks for`,
      actual: `the agent asked for round ${context.exhaustedAt}, past the last scripted reply`,
      ...(trace.rounds.length > 0 && { step: { seq: trace.rounds.at(-1)!.seq, round: trace.rounds.at(-1)!.round } }),
    });
  const status = expect.status ?? 'ok';
  if (end?.status !== status)
    failures.push({
      field: expect.status === undefined ? 'expect.status (default ok)' : 'expect.status',
      expected: status,
      actual: end ? `${end.status}${end.error ? `: ${end.error.message}` : ''}` : 'the run did not end',
      ...(endStep && { step: endStep }),
    });
  if (expect.error !== undefined) {
    const message = end?.error?.message ?? null;
    const problem = textMismatch(expect.error, message);
    if (problem)
      failures.push({
        field: 'expect.error',
        expected: expectedText(expect.error),
        actual: `${message === null ? 'no error' : shown(message)} (${problem})`,
        ...(endStep && { step: endStep }),
      });
  }
  checkCalls(expect, trace, failures);
  checkToolsReachable(expect, trace, failures, afterRun);
  for (const [alias, count] of Object.entries(expect.counts ?? {})) {
    const calls = trace.calls.filter((call) => call.alias === alias);
    const { min, max } = typeof count === 'number' ? { min: count, max: count } : count;
    if ((min !== undefined && calls.length < min) || (max !== undefined && calls.length > max)) {
      const over = max !== undefined && calls.length > max ? calls[max] : undefined;
      failures.push({
        field: `expect.counts.${alias}`,
        expected: typeof count === 'number' ? `${count} call(s)` : `${min ?? 0} to ${max ?? 'any number of'} calls`,
        actual: `${calls.length} call(s)`,
        ...(over ? { step: callStep(over) } : afterRun),
      });
    }
  }
  for (const alias of expect.not_called ?? []) {
    const call = trace.calls.find((candidate) => candidate.alias === alias);
    if (call)
      failures.push({
        field: 'expect.not_called',
        expected: `no call to ${alias}`,
        actual: `${describeCall(call)}${call.decision ? `, ${call.decision}` : ''}`,
        step: callStep(call),
      });
  }
  if (expect.final !== undefined) {
    const problem = textMismatch(expect.final, trace.finalText);
    const last = trace.rounds.at(-1);
    if (problem)
      failures.push({
        field: 'expect.final',
        expected: expectedText(expect.final),
        actual: `${shown(trace.finalText)} (${problem})`,
        ...(last && { step: { seq: last.seq, round: last.round } }),
      });
  }
  if (expect.logs !== undefined) {
    const text = trace.logs.join('\n');
    const problem = textMismatch(expect.logs, text);
    if (problem)
      failures.push({
        field: 'expect.logs',
        expected: expectedText(expect.logs),
        actual: `${shown(text)} (${problem})`,
        ...afterRun,
      });
  }
  if (expect.max_rounds !== undefined && trace.rounds.length > expect.max_rounds) {
    const over = trace.rounds[expect.max_rounds]!;
    failures.push({
      field: 'expect.max_rounds',
      expected: `at most ${expect.max_rounds} round(s)`,
      actual: `${trace.rounds.length} rounds`,
      step: { seq: over.seq, round: over.round },
    });
  }
  if (expect.max_tokens !== undefined && trace.tokens > expect.max_tokens) {
    let sum = 0;
    const over = trace.rounds.find((round) => (sum += round.tokens) > expect.max_tokens!);
    failures.push({
      field: 'expect.max_tokens',
      expected: `at most ${expect.max_tokens} tokens`,
      actual: `${trace.tokens} tokens`,
      ...(over ? { step: { seq: over.seq, round: over.round } } : afterRun),
    });
  }
  if (expect.max_cost !== undefined) {
    const cost = end?.cost;
    if (cost === undefined)
      failures.push({
        field: 'expect.max_cost',
        expected: `a cost of at most ${expect.max_cost}`,
        actual: 'no cost (the model has no price: add price to its models.yaml entry or scripted model)',
        ...afterRun,
      });
    else if (cost > expect.max_cost) {
      let sum = 0;
      const over = trace.rounds.find((round) => (sum += round.cost ?? 0) > expect.max_cost!);
      failures.push({
        field: 'expect.max_cost',
        expected: `a cost of at most ${expect.max_cost}`,
        actual: `${cost}`,
        ...(over ? { step: { seq: over.seq, round: over.round } } : afterRun),
      });
    }
  }
  const environment = context.environment;
  const checks = expect.check === undefined ? [] : Array.isArray(expect.check) ? expect.check : [expect.check];
  for (const name of checks) {
    const check = environment?.definition.checks[name];
    if (!check) continue;
    let result;
    try {
      result = check(environment.check);
    } catch (error) {
      result = { ok: false, expected: `check ${name} to run`, actual: `it threw: ${String(error)}` };
    }
    if (!result.ok)
      failures.push({ field: `expect.check ${name}`, expected: result.expected, actual: result.actual, ...afterRun });
  }
  for (const [index, state] of (expect.state ?? []).entries()) {
    if (!environment) continue;
    const value = valueAt(environment.check.after, state.pointer);
    const field = `expect.state[${index + 1}] ${state.pointer || '(the whole state)'}`;
    if (state.equals !== undefined && (value === undefined || canonicalJson(value) !== canonicalJson(state.equals)))
      failures.push({
        field,
        expected: shown(state.equals),
        actual: value === undefined ? 'nothing there' : shown(value),
        ...afterRun,
      });
    if (state.schema !== undefined) {
      const problem = value === undefined ? 'nothing there' : schemaMismatch(state.schema, value);
      if (problem)
        failures.push({
          field,
          expected: 'a value matching the schema',
          actual: `${shown(value)}: ${problem}`,
          ...afterRun,
        });
    }
  }
  return failures;
}

function valueAt(root: JsonValue, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const segment of pointer === '' ? [] : pointerSegments(pointer)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isPlainObject(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    else return undefined;
  }
  return node;
}

/** `expect.calls`: in order, others between them unless only_these_calls. */
function checkCalls(expect: CaseExpect, trace: CaseTrace, failures: Failure[]): void {
  const expected = expect.calls ?? [];
  if (expect.only_these_calls) {
    for (let index = 0; index < Math.max(expected.length, trace.calls.length); index += 1) {
      const match = expected[index];
      const call = trace.calls[index];
      const field = `expect.calls[${index + 1}]`;
      if (!match) {
        failures.push({
          field: 'expect.only_these_calls',
          expected: `${expected.length} call(s) only`,
          actual: `also ${describeCall(call!)}`,
          step: callStep(call!),
        });
        return;
      }
      if (!call) {
        const last = trace.calls.at(-1);
        failures.push({
          field,
          expected: `${match.tool} as call ${index + 1}`,
          actual: `the run made ${trace.calls.length} call(s)`,
          ...(last ? { step: callStep(last) } : trace.end && { step: { seq: trace.end.seq } }),
        });
        return;
      }
      const problem = callMismatch(match, call);
      if (problem) {
        failures.push({
          field: `${field}.${problem.field}`,
          expected: problem.expected,
          actual: problem.actual,
          step: callStep(call),
        });
        return;
      }
    }
    return;
  }
  let from = 0;
  for (const [index, match] of expected.entries()) {
    const found = trace.calls.findIndex((call, at) => at >= from && callMismatch(match, call) === undefined);
    if (found >= 0) {
      from = found + 1;
      continue;
    }
    const field = `expect.calls[${index + 1}]`;
    const candidate = trace.calls.find((call, at) => at >= from && call.alias === match.tool);
    if (candidate) {
      const problem = callMismatch(match, candidate)!;
      failures.push({
        field: `${field}.${problem.field}`,
        expected: problem.expected,
        actual: problem.actual,
        step: callStep(candidate),
      });
    } else {
      const after = trace.calls[from - 1];
      const later = trace.calls.slice(from).map(describeCall);
      failures.push({
        field,
        expected: `a call to ${match.tool}${index > 0 ? ` after call ${from}` : ''}`,
        actual: later.length
          ? `later calls: ${later.slice(0, 5).join(', ')}${later.length > 5 ? ', …' : ''}`
          : `no ${index > 0 ? 'later ' : ''}call to ${match.tool}`,
        ...(after ? { step: callStep(after) } : trace.end && { step: { seq: trace.end.seq } }),
      });
    }
    return;
  }
}

/**
 * A call assertion on a tool the agent never advertises to the model and never calls checks
 * nothing: the model cannot ask for it. Said as a failure, so a misspelt alias is not a silent pass.
 */
function checkToolsReachable(
  expect: CaseExpect,
  trace: CaseTrace,
  failures: Failure[],
  afterRun: { step?: Step },
): void {
  if (trace.rounds.length === 0) return;
  const named = new Set([
    ...(expect.calls ?? []).map((call) => call.tool),
    ...Object.keys(expect.counts ?? {}),
    ...(expect.not_called ?? []),
  ]);
  const called = new Set(trace.calls.map((call) => call.alias));
  for (const alias of named) {
    if (trace.advertised.has(alias) || called.has(alias)) continue;
    failures.push({
      field: 'expect (tool names)',
      expected: `the agent to advertise ${alias} to the model`,
      actual: `it advertises ${trace.advertised.size ? [...trace.advertised].join(', ') : 'no tools'}: an assertion on ${alias} checks nothing; correct the alias or the agent's tools list`,
      ...afterRun,
    });
  }
}
