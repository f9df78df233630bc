/** `promptforge rules list|add|rm|enable|disable|test`: the person's approval rules, from the terminal. */
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Condition, Rule, ServerIdentity } from '../../common/approval-rules.js';
import { isPlainObject, parseExactJson, type JsonObject } from '../../common/json.js';
import type { Workspace } from '../core/catalog/workspace.js';
import { describeRule, explainDecision } from '../core/rules/rule-words.js';
import { RuleStore, RulesConflictError } from '../core/rules/rule-store.js';
import { RuleUsage } from '../core/rules/rule-usage.js';
import { RuleDefinitions } from '../core/rules/rule-definitions.js';
import { rulesOverview } from '../core/rules/rule-overview.js';
import { serverIdentity, type RuleCall } from '../core/rules/rule-match.js';
import { nearestName, shownName } from '../core/did-you-mean.js';
import { toolDefinitionDigest } from '../core/tools/tool-definition.js';
import { userConfigDir } from '../core/trust/config-dir.js';
import { parse, unknownWord } from './cli-args.js';
import { UsageError } from './cli-errors.js';
import type { CliIo, Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot } from './cli-workspace.js';
import { EXIT } from './exit-codes.js';
import { terminalSafeJson } from './terminal-text.js';

const ACTIONS = ['list', 'add', 'rm', 'enable', 'disable', 'test'];

/** The rules store of this user (PROMPTFORGE_CONFIG_DIR, or the studio's userData folder). */
export function ruleStore(io: CliIo): RuleStore {
  return new RuleStore(configDir(io));
}

/** The usage log of this user's rules. */
export function ruleUsage(io: CliIo): RuleUsage {
  return new RuleUsage(configDir(io));
}

/** The tool definitions this user's rules were confirmed on. */
export function ruleDefinitions(io: CliIo): RuleDefinitions {
  return new RuleDefinitions(configDir(io));
}

function configDir(io: CliIo): string {
  return userConfigDir({ platform: process.platform, env: io.env, home: os.homedir() });
}

export async function rulesCommand(args: string[], io: CliIo, print: Printer): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case 'list':
      return list(rest, io, print);
    case 'add':
      return add(rest, io, print);
    case 'rm':
    case 'enable':
    case 'disable':
      return change(action, rest, io, print);
    case 'test':
      return test(rest, io, print);
    case undefined:
      throw new UsageError(`rules needs an action: ${ACTIONS.join(', ')} (promptforge rules --help)`);
    default:
      throw new UsageError(unknownWord('rules action', action, ACTIONS, `the actions are ${ACTIONS.join(', ')}`));
  }
}

async function list(args: string[], io: CliIo, print: Printer): Promise<number> {
  const { values, positionals } = parse('rules list', args, {
    workspace: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError('rules list takes no arguments');
  const store = ruleStore(io);
  // As `promptforge run` does: the workspace found upwards, else the working folder.
  const root = (await workspaceRoot(io, values.workspace)) ?? io.cwd;
  const snapshot = await store.load(root);
  for (const warning of snapshot.warnings) print.err(warning);
  for (const problem of store.describeProblems(snapshot)) print.err(problem);
  if (snapshot.state === 'broken') print.err('no approval rule applies, and every call asks, until the file is fixed');
  const usage = (await ruleUsage(io).read()).rules;
  const workspace = root ? await loadWorkspace(root, print) : undefined;
  const real = root ? realPath(root) : undefined;
  const overview = rulesOverview(snapshot.rules, {
    ...(real !== undefined && { workspace: real }),
    ...(workspace && { tools: workspace.tools.list().map((tool) => ({ alias: tool.alias })) }),
  });
  const rows = overview.map(({ rule, words, missingTool }) => {
    const used = Object.hasOwn(usage, rule.id) ? usage[rule.id] : undefined;
    const missing =
      missingTool !== undefined
        ? `no tool "${missingTool}" in this workspace's catalog (harmless: it matches nothing here${rule.workspace === '*' ? '' : '; remove it with promptforge rules rm ' + rule.id})`
        : undefined;
    return { rule, words, ...(used && { lastUsed: used }), ...(missing && { missing }) };
  });
  if (values.json) {
    io.stdout.write(`${terminalSafeJson({ file: snapshot.file, state: snapshot.state, rules: rows })}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) print.out(`no approval rules (${snapshot.file}); add one with promptforge rules add`);
  for (const row of rows) {
    print.out(`${row.rule.id}  ${row.rule.decision}${row.rule.enabled === false ? '  (off)' : ''}`);
    print.out(`  ${row.words}`);
    if (row.lastUsed)
      print.out(
        `  last decided a call ${row.lastUsed.lastAt} (tool "${row.lastUsed.lastAlias}"; ${row.lastUsed.count} in all)`,
      );
    else print.out('  has not decided a call yet');
    if (row.missing) print.out(`  ${row.missing}`);
  }
  return EXIT.ok;
}

async function add(args: string[], io: CliIo, print: Printer): Promise<number> {
  const { values, positionals } = parse('rules add', args, {
    id: { type: 'string' },
    tool: { type: 'string' },
    tools: { type: 'string' },
    'server-command': { type: 'string' },
    'server-url': { type: 'string' },
    workspace: { type: 'string' },
    'all-workspaces': { type: 'boolean' },
    when: { type: 'string', multiple: true },
    sink: { type: 'string', multiple: true },
    tolerant: { type: 'string', multiple: true },
    'allow-tainted': { type: 'string', multiple: true },
    note: { type: 'string' },
  });
  if (positionals.length !== 1 || !['allow', 'ask', 'deny'].includes(positionals[0]!))
    throw new UsageError('rules add takes one decision: promptforge rules add allow|ask|deny --tool ALIAS [options]');
  const decision = positionals[0] as Rule['decision'];
  const targets = [values.tool, values.tools, values['server-command'], values['server-url']].filter(
    (v) => v !== undefined,
  );
  if (targets.length !== 1)
    throw new UsageError(
      'give exactly one of --tool ALIAS, --tools GLOB, --server-command "CMD ARGS..." or --server-url URL',
    );
  if (values.workspace !== undefined && values['all-workspaces'])
    throw new UsageError('use either --workspace DIR or --all-workspaces, not both');
  const root = values['all-workspaces'] ? undefined : ((await workspaceRoot(io, values.workspace)) ?? io.cwd);
  const real = root ? realPath(root) : undefined;
  const server: ServerIdentity | undefined =
    values['server-url'] !== undefined
      ? { url: values['server-url'] }
      : values['server-command'] !== undefined
        ? serverIdentity({ type: 'stdio', ...splitCommand(values['server-command']) }, real)
        : undefined;
  const now = new Date();
  const id =
    values.id ??
    `${decision}-${(values.tool ?? values.tools ?? 'server').replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40)}-${now.getTime().toString(36)}`;
  const rule: Rule = {
    id,
    decision,
    workspace: real ?? '*',
    ...(values.tool !== undefined && { tool: values.tool }),
    ...(values.tools !== undefined && { tools: values.tools }),
    ...(server && { server }),
    ...(values.when && { when: values.when.map(conditionFlag) }),
    ...(values.sink && { sinks: values.sink.map((p) => pointerFlag('--sink', p)) }),
    ...(values.tolerant && { tolerant: values.tolerant.map((p) => pointerFlag('--tolerant', p)) }),
    ...(values['allow-tainted'] && {
      allowTainted: values['allow-tainted'].map((p) => pointerFlag('--allow-tainted', p)),
    }),
    ...(values.note !== undefined && { note: values.note }),
    createdAt: now.toISOString(),
  };
  // The person names a tool of this workspace: the rule is confirmed on its definition as it is now.
  if (decision === 'allow' && values.tool !== undefined && root) {
    const workspace = await loadWorkspace(root, print);
    const spec = workspace?.tools.get(values.tool);
    if (spec) {
      rule.confirmed = [{ alias: spec.alias, digest: toolDefinitionDigest(spec), at: now.toISOString() }];
      print.say(
        `confirmed on the current definition of "${spec.alias}" (sha256:${rule.confirmed[0]!.digest.slice(0, 12)})`,
      );
    } else {
      const near = workspace ? nearestName(values.tool, workspace.tools.aliases()) : undefined;
      print.say(
        `no tool "${shownName(values.tool)}" in this workspace's catalog now: its first call will ask once, and your yes confirms the rule` +
          (near === undefined
            ? ''
            : `. Did you mean "${shownName(near)}"? Then remove this rule (promptforge rules rm ${rule.id}) and add it with --tool ${shownName(near)}`),
      );
    }
  }
  const store = ruleStore(io);
  try {
    await store.add(rule);
  } catch (error) {
    if (error instanceof RulesConflictError) throw new UsageError(error.message);
    throw error;
  }
  const confirmedOn = rule.confirmed?.[0];
  const confirmedSpec =
    confirmedOn && values.tool !== undefined && root
      ? (await loadWorkspace(root, print))?.tools.get(values.tool)
      : undefined;
  if (confirmedOn && confirmedSpec) await ruleDefinitions(io).remember(confirmedOn.digest, confirmedSpec);
  print.out(`added rule ${rule.id} to ${store.file}`);
  print.out(`  ${describeRule(rule)}`);
  return EXIT.ok;
}

async function change(action: 'rm' | 'enable' | 'disable', args: string[], io: CliIo, print: Printer): Promise<number> {
  const { positionals } = parse(`rules ${action}`, args, {});
  if (positionals.length !== 1)
    throw new UsageError(`rules ${action} takes one rule id: promptforge rules ${action} ID`);
  const id = positionals[0]!;
  const store = ruleStore(io);
  if (action === 'rm') await store.remove(id);
  else await store.setEnabled(id, action === 'enable');
  print.out(`${action === 'rm' ? 'removed' : action === 'enable' ? 'turned on' : 'turned off'} rule ${id}`);
  return EXIT.ok;
}

async function test(args: string[], io: CliIo, print: Printer): Promise<number> {
  const { values, positionals } = parse('rules test', args, {
    workspace: { type: 'string' },
    args: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1)
    throw new UsageError("rules test takes one tool alias: promptforge rules test ALIAS --args '{...}'");
  const alias = positionals[0]!;
  let callArgs: JsonObject = {};
  if (values.args !== undefined) {
    const parsed = parseExactJson(values.args);
    if (!parsed.ok || !isPlainObject(parsed.value))
      throw new UsageError(
        `--args must be a JSON object, e.g. '{"to":"ana@example.com"}'${parsed.ok ? '' : ` (${parsed.problem})`}`,
      );
    callArgs = parsed.value;
  }
  const store = ruleStore(io);
  // As `promptforge run` does: the workspace found upwards, else the working folder.
  const root = (await workspaceRoot(io, values.workspace)) ?? io.cwd;
  const snapshot = await store.load(root);
  for (const warning of snapshot.warnings) print.err(warning);
  const workspace = root ? await loadWorkspace(root, print) : undefined;
  const real = root ? realPath(root) : undefined;
  const spec = workspace?.tools.get(alias);
  const call: RuleCall = {
    alias,
    arguments: callArgs,
    ...(real !== undefined && { workspace: real }),
    ...(spec && { definition: spec, digest: toolDefinitionDigest(spec) }),
  };
  if (snapshot.state === 'broken') {
    for (const problem of store.describeProblems(snapshot)) print.err(problem);
    print.out('the rules file cannot be read: no rule applies, and every call asks');
    return EXIT.ok;
  }
  const { verdict, lines } = explainDecision(snapshot.rules, call, {
    ...(spec?.sinks && { sinks: spec.sinks }),
    ...(spec?.tolerant && { tolerant: spec.tolerant }),
  });
  if (values.json) {
    io.stdout.write(
      `${terminalSafeJson({
        outcome: verdict.outcome,
        ...(verdict.rule && { rule: verdict.rule.id }),
        ...(verdict.unconfirmed && { unconfirmed: verdict.unconfirmed.id }),
        note: verdict.note.text,
        sinks: verdict.marks.sinks,
        tolerant: verdict.marks.tolerant,
        considered: verdict.considered.map((match) => ({
          rule: match.entry.id,
          decision: match.entry.decision,
          matched: match.matched,
          conditions: match.conditions,
        })),
        lines,
      })}\n`,
    );
    return EXIT.ok;
  }
  print.out(
    `call: ${alias} ${JSON.stringify(callArgs)}${real ? ` in ${real}` : ''}${spec ? '' : " (the tool is not in this workspace's catalog)"}`,
  );
  print.out(
    "order: deny rules > ask rules > allow rules (file order within each) > the tool's policy > the taint rule > the approver",
  );
  for (const line of lines) print.out(line);
  if (verdict.marks.sinks.length > 0) print.out(`sinks (ask on any untrusted text): ${verdict.marks.sinks.join(', ')}`);
  return EXIT.ok;
}

async function loadWorkspace(root: string, print: Printer): Promise<Workspace | undefined> {
  try {
    const { loadWorkspace } = await loadCatalogModules();
    return await loadWorkspace(root);
  } catch (error) {
    print.err(`cannot read the workspace's catalog: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

function realPath(folder: string): string {
  try {
    return realpathSync.native(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** `--when /to=ana@example.com` (equals, as a string) or `--when '{"pointer":"/to","oneOf":[...]}'`. */
function conditionFlag(text: string): Condition {
  if (text.trimStart().startsWith('{')) {
    const parsed = parseExactJson(text);
    if (!parsed.ok || !isPlainObject(parsed.value) || typeof parsed.value['pointer'] !== 'string')
      throw new UsageError(
        `--when ${text}: a JSON condition is an object with "pointer" and one test (equals, oneOf, glob, pattern, inFolder, urlHost)`,
      );
    return parsed.value as Condition;
  }
  const equals = text.indexOf('=');
  if (equals < 0)
    throw new UsageError(`--when ${text}: write POINTER=VALUE (e.g. /to=ana@example.com) or a JSON condition`);
  return { pointer: pointerFlag('--when', text.slice(0, equals)), equals: text.slice(equals + 1) };
}

function pointerFlag(flag: string, pointer: string): string {
  if (pointer !== '' && !pointer.startsWith('/'))
    throw new UsageError(`${flag} ${pointer}: a JSON pointer starts with "/" (e.g. /to)`);
  return pointer;
}

/** A command line split on spaces (quotes keep spaces in a word). */
function splitCommand(text: string): { command: string; args: string[] } {
  const words = [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
  if (words.length === 0)
    throw new UsageError('--server-command needs the command, e.g. --server-command "node server.js"');
  return { command: words[0]!, args: words.slice(1) };
}
