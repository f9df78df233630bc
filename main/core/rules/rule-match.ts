/**
 * Whether one approval rule covers one call: its workspace, its target (an alias, a glob of aliases
 * or an MCP server), its conditions on the arguments and on a trusted server's annotations. Rules
 * are compiled once (patterns on RE2, globs as RE2 too), and indexed by alias, so a call costs a
 * map look-up plus the glob and server rules.
 */
import path from 'node:path';
import { realpathSync } from 'node:fs';
import type { RE2JS } from 're2js';
import {
  MCP_ANNOTATIONS,
  type Condition,
  type ConditionOutcome,
  type ConditionResult,
  type RuleMatch,
  type Marking,
  type Rule,
  type RulesFile,
  type ServerIdentity,
} from '../../../common/approval-rules.js';
import type { JsonObject, JsonValue } from '../../../common/json.js';
import { pointerSegments } from '../../../common/json-pointer.js';
import { compileLinearPattern, maxPatternInputLength } from '../../../common/linear-regexp.js';
import { canonicalJson, type DefinedTool } from '../tools/tool-definition.js';
import { checkInsideWorkspace, isInside } from '../tools/workspace-path.js';

/** A call as the rules see it. */
export interface RuleCall {
  alias: string;
  arguments: JsonObject;
  /** The workspace's real path; undefined when the run has none. */
  workspace?: string;
  /** The tool's definition now, when the catalog has it. */
  definition?: DefinedTool;
  /** Its digest (toolDefinitionDigest). */
  digest?: string;
  /** For an MCP tool: how its server is reached. */
  server?: ServerIdentity;
}

interface Compiled<T extends Rule | Marking> {
  entry: T;
  index: number;
  glob?: RE2JS;
  /** The glob's text before its first wildcard: an alias without it is not tested on RE2. */
  globPrefix?: string;
  conditions: CompiledCondition[];
  server?: string;
}

interface CompiledCondition {
  condition: Condition;
  regexp?: RE2JS;
  hosts?: { host: string; wildcard: boolean; port: string }[];
}

/** The rules and markings of one file, compiled and indexed. */
export class RuleSet {
  private readonly byAlias = new Map<string, Compiled<Rule>[]>();
  private readonly others: Compiled<Rule>[] = [];
  private readonly markings: Compiled<Marking>[] = [];
  private readonly trustedServers: Set<string>;

  constructor(readonly file: RulesFile) {
    (file.rules ?? []).forEach((rule, index) => {
      if (rule.enabled === false) return;
      const compiled = compile(rule, index);
      if (rule.tool !== undefined) {
        const list = this.byAlias.get(rule.tool) ?? [];
        list.push(compiled);
        this.byAlias.set(rule.tool, list);
      } else this.others.push(compiled);
    });
    (file.markings ?? []).forEach((marking, index) => this.markings.push(compile(marking, index)));
    this.trustedServers = new Set((file.trustedServers ?? []).map((entry) => serverKey(entry.server)));
  }

  /** Every enabled rule whose workspace and target cover the call, in file order, conditions evaluated. */
  rulesFor(call: RuleCall): RuleMatch[] {
    const candidates = [...(this.byAlias.get(call.alias) ?? []), ...this.others].sort((a, b) => a.index - b.index);
    const out: RuleMatch[] = [];
    for (const compiled of candidates) {
      if (!this.covers(compiled, call)) continue;
      const conditions = compiled.conditions.map((condition) => evaluate(condition, call));
      const annotation = annotationResults(compiled.entry, call, this.trustedServers);
      const all = [...conditions, ...annotation];
      const failClosed = compiled.entry.decision !== 'allow';
      const matched = all.every((result) => result.outcome === 'met' || (failClosed && result.outcome === 'unknown'));
      out.push({ entry: compiled.entry, index: compiled.index, conditions: all, matched });
    }
    return out;
  }

  /** The markings whose workspace and target cover the call. */
  markingsFor(call: RuleCall): Marking[] {
    return this.markings.filter((compiled) => this.covers(compiled, call)).map((compiled) => compiled.entry);
  }

  /** Whether the person listed `server` under trustedServers. */
  trustsServer(server: ServerIdentity | undefined): boolean {
    return server !== undefined && this.trustedServers.has(serverKey(server));
  }

  private covers(compiled: Compiled<Rule | Marking>, call: RuleCall): boolean {
    const { entry } = compiled;
    if (entry.workspace !== '*' && entry.workspace !== call.workspace) return false;
    if (entry.tool !== undefined) return entry.tool === call.alias;
    if (compiled.glob) return call.alias.startsWith(compiled.globPrefix ?? '') && compiled.glob.matches(call.alias);
    if (compiled.server !== undefined) return call.server !== undefined && serverKey(call.server) === compiled.server;
    return false;
  }
}

function compile<T extends Rule | Marking>(entry: T, index: number): Compiled<T> {
  const conditions = 'when' in entry ? (entry.when ?? []).map(compileCondition) : [];
  return {
    entry,
    index,
    conditions,
    ...(entry.tools !== undefined && { glob: globRegExp(entry.tools), globPrefix: entry.tools.split(/[*?]/)[0] }),
    ...(entry.server !== undefined && { server: serverKey(entry.server) }),
  };
}

function compileCondition(condition: Condition): CompiledCondition {
  if (condition.pattern !== undefined) return { condition, regexp: compileLinearPattern(condition.pattern) };
  if (condition.glob !== undefined) return { condition, regexp: globRegExp(condition.glob) };
  if (condition.urlHost !== undefined) return { condition, hosts: condition.urlHost.map(hostEntry) };
  return { condition };
}

/** A glob as an RE2 program matching the whole text: `*` any run of characters, `?` one. */
export function globRegExp(glob: string): RE2JS {
  let source = '';
  for (const ch of glob)
    source += ch === '*' ? '[\\s\\S]*' : ch === '?' ? '[\\s\\S]' : ch.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
  return compileLinearPattern(source);
}

/** A server's identity as a comparable string. */
export function serverKey(server: ServerIdentity): string {
  if ('url' in server) {
    try {
      return `url ${new URL(server.url).href}`;
    } catch {
      return `url ${server.url}`;
    }
  }
  return `command ${JSON.stringify(server.command)}`;
}

/**
 * The identity of a stdio or HTTP MCP server as rules name it: the URL, or the command (one with a
 * slash resolved against the workspace root, as the host runs it) and its arguments.
 */
export function serverIdentity(
  transport: { type: 'stdio'; command: string; args: string[] } | { type: 'http'; url: string },
  workspaceRoot: string | undefined,
): ServerIdentity {
  if (transport.type === 'http') return { url: transport.url };
  const command =
    transport.command.includes('/') && workspaceRoot !== undefined && !path.isAbsolute(transport.command)
      ? path.resolve(workspaceRoot, transport.command)
      : transport.command;
  return { command: [command, ...transport.args] };
}

/** The value at `pointer` in `args` (own members only), or undefined. */
export function valueAt(args: JsonValue, pointer: string): JsonValue | undefined {
  let value: JsonValue | undefined = args;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      value = value[Number(segment)];
    } else if (value !== null && typeof value === 'object') {
      if (!Object.hasOwn(value, segment)) return undefined;
      value = value[segment];
    } else return undefined;
  }
  return value;
}

function evaluate(compiled: CompiledCondition, call: RuleCall): ConditionResult {
  const { condition } = compiled;
  const words = conditionWords(condition);
  const value = valueAt(call.arguments, condition.pointer);
  const result = (outcome: ConditionOutcome, why?: string): ConditionResult => ({
    condition: words,
    outcome,
    ...(why !== undefined && { why }),
  });
  if (value === undefined) return result('not-met', `the call has no ${condition.pointer || 'arguments'}`);
  if (condition.equals !== undefined)
    return canonicalJson(value) === canonicalJson(condition.equals)
      ? result('met')
      : result('not-met', `it is ${short(value)}`);
  if (condition.oneOf !== undefined) {
    const key = canonicalJson(value);
    return condition.oneOf.some((item) => canonicalJson(item) === key)
      ? result('met')
      : result('not-met', `it is ${short(value)}`);
  }
  if (typeof value !== 'string') return result('not-met', `it is not a string but ${short(value)}`);
  if (compiled.regexp) {
    if (value.length > maxPatternInputLength(compiled.regexp))
      return result('unknown', `it is too long (${value.length} characters) to test against the pattern`);
    return compiled.regexp.matches(value) ? result('met') : result('not-met', `it is ${short(value)}`);
  }
  if (condition.inFolder !== undefined) return inFolder(condition.inFolder, value, call.workspace, result);
  if (compiled.hosts) return urlHostResult(value, compiled.hosts, result);
  return result('not-met', 'the condition has no test');
}

function inFolder(
  folder: string,
  value: string,
  workspace: string | undefined,
  result: (outcome: ConditionOutcome, why?: string) => ConditionResult,
): ConditionResult {
  if (workspace === undefined) return result('not-met', 'the run has no workspace');
  if (value.includes('\0')) return result('not-met', 'the path contains a NUL byte');
  const base = checkInsideWorkspace(workspace, folder, { missing: 'refuse' });
  if (!base.ok) return result('not-met', `the folder ${folder} is not an existing folder inside the workspace`);
  const target = checkInsideWorkspace(workspace, value, { missing: 'nearest' });
  if (!target.ok)
    return result(
      'not-met',
      target.problem === 'link-outside'
        ? 'it leads outside the workspace through a link'
        : 'it is outside the workspace',
    );
  const lexical = path.resolve(workspace, value);
  let baseReal: string;
  try {
    baseReal = realpathSync.native(base.path);
  } catch {
    return result('not-met', `the folder ${folder} has no real path`);
  }
  // Lexically inside the folder, and its real path (as far as it exists) inside the folder's real path.
  if (!isInside(base.path, lexical) || !isInside(baseReal, target.real))
    return result('not-met', `it is not inside ${folder}`);
  return result('met');
}

/** A urlHost entry: `example.com`, `*.example.com`, `example.com:8443`, normalised as a URL host. */
function hostEntry(entry: string): { host: string; wildcard: boolean; port: string } {
  const wildcard = entry.startsWith('*.');
  const rest = wildcard ? entry.slice(2) : entry;
  try {
    const url = new URL(`http://${rest}`);
    return { host: trimDot(url.hostname), wildcard, port: url.port };
  } catch {
    return { host: `\0${entry}`, wildcard, port: '' };
  }
}

function urlHostResult(
  value: string,
  hosts: { host: string; wildcard: boolean; port: string }[],
  result: (outcome: ConditionOutcome, why?: string) => ConditionResult,
): ConditionResult {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return result('not-met', 'it is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return result('not-met', `its scheme is ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    return result('not-met', 'it carries user info (user@ or user:password@)');
  // WHATWG URL gives the host lower-cased and IDN as punycode; a trailing dot names the same host.
  const host = trimDot(url.hostname);
  const port = url.port;
  const found = hosts.some(
    (entry) =>
      entry.port === port &&
      (entry.wildcard ? host.endsWith(`.${entry.host}`) && host.length > entry.host.length + 1 : host === entry.host),
  );
  return found ? result('met') : result('not-met', `its host is ${host}${port ? `:${port}` : ''}`);
}

function trimDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function annotationResults(entry: Rule, call: RuleCall, trusted: Set<string>): ConditionResult[] {
  const wanted = MCP_ANNOTATIONS.filter((name) => entry.annotations?.[name] !== undefined);
  if (wanted.length === 0) return [];
  const serverTrusted = call.server !== undefined && trusted.has(serverKey(call.server));
  return wanted.map((name) => {
    const condition = `annotation ${name} is ${String(entry.annotations?.[name])}`;
    if (call.server === undefined) return { condition, outcome: 'not-met', why: 'the tool is not from an MCP server' };
    if (!serverTrusted)
      return {
        condition,
        outcome: 'not-met',
        why: 'its server is not on your trustedServers list, so its annotations do not count',
      };
    const actual = call.definition?.annotations?.[name];
    return actual === entry.annotations?.[name]
      ? { condition, outcome: 'met' }
      : { condition, outcome: 'not-met', why: `the server says ${actual === undefined ? 'nothing' : String(actual)}` };
  });
}

/** A condition in words: `/to is one of ["a","b"]`. */
export function conditionWords(condition: Condition): string {
  const at = condition.pointer === '' ? 'the arguments' : condition.pointer;
  if (condition.equals !== undefined) return `${at} is ${short(condition.equals as JsonValue)}`;
  if (condition.oneOf !== undefined)
    return `${at} is one of ${condition.oneOf.map((item) => short(item as JsonValue)).join(', ')}`;
  if (condition.glob !== undefined) return `${at} matches the glob ${JSON.stringify(condition.glob)}`;
  if (condition.pattern !== undefined) return `${at} wholly matches the pattern ${JSON.stringify(condition.pattern)}`;
  if (condition.inFolder !== undefined)
    return `${at} is a path inside the workspace folder ${JSON.stringify(condition.inFolder)}`;
  if (condition.urlHost !== undefined) return `${at} is an http(s) URL on ${condition.urlHost.join(', ')}`;
  return `${at} (no test)`;
}

function short(value: JsonValue | undefined): string {
  // JSON.stringify gives undefined for undefined (its type says string).
  const text = (JSON.stringify(value) as string | undefined) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
