/**
 * The person's approval rules in the studio: the Rules view's listing (pushed as `rules-changed`
 * whenever the file or its usage changes on disk, the CLI's edits included), what "Always allow…"
 * proposes for a waiting call, a rule in words while it is edited, and saving, turning on or off
 * and deleting rules. The page may ask; a change that can let calls run without asking happens only
 * with the person's yes in main's own dialog, which names the rule (docs/threat-model.md, "Approval
 * rules in the studio"). Runs started here follow the file as it changes.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stringify } from 'yaml';
import { RULES_FILE_NAME, type Rule } from '../../../common/approval-rules.js';
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type {
  CallRef,
  RuleDraft,
  RuleProposal,
  RulesListing,
  RulesProblemInfo,
  RuleWords,
} from '../../../common/rules-schemas.js';
import type { PendingCall } from '../approval/approver.js';
import type { PendingApprovals } from '../approval/pending-approvals.js';
import type { Workspace } from '../catalog/workspace.js';
import type { LiveRules, PrepareRunOptions } from '../run/prepare-run.js';
import { RuleDefinitions } from '../rules/rule-definitions.js';
import { RuleSet } from '../rules/rule-match.js';
import { rulesOverview, serverWords, type OverviewTool } from '../rules/rule-overview.js';
import { RuleStore, RulesConflictError, type RulesSnapshot } from '../rules/rule-store.js';
import { RULES_USAGE_FILE, RuleUsage } from '../rules/rule-usage.js';
import { describeRule, narrowestRuleFor, ruleIdFor, widen } from '../rules/rule-words.js';
import { emptyRules, formatRulesProblem, ruleProblems, type RulesProblem } from '../rules/rules-file.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { ensurePrivateFolder } from '../trust/config-dir.js';
import { ConfigFileError } from '../trust/config-file.js';
import { ContractError } from './contract-error.js';
import type { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';
import type { PersonQuestion } from './studio-trust.js';
import { completedRule, realPathOf, ruleCallOf, ruleCoverage, toolServer, toolSpecOf } from './studio-rule-calls.js';

/** Quiet time after the last change of a watched file before it is read again. */
const WATCH_DEBOUNCE_MS = 100;

/** What the rules part needs from the studio service. */
export interface StudioRulesHost {
  configDirectory: string;
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** The open workspace. */
  workspace(): Workspace | undefined;
  /** The MCP servers' tools as last listed. */
  mcpTools(): readonly ToolSpec[];
  /** The calls waiting for the person (a saved rule may run one). */
  pending: PendingApprovals;
  /** Main's own dialogs: each question is paid for by the person's press that came with the call. */
  dialogs: PersonDialogs;
  /** The servers the person trusts for rules changed (tools are marked with it). */
  trustedServersChanged?(): void;
}

/** The person's rules in the studio (see the module note). */
export class StudioRules {
  readonly store: RuleStore;
  readonly usage: RuleUsage;
  readonly definitions: RuleDefinitions;
  /** The file as last read for the open workspace, compiled. */
  private snapshot: RulesSnapshot | undefined;
  private set = new RuleSet(emptyRules());
  /** Runs following the file, by the workspace they run in. */
  private readonly live = new Set<{ root: string; listener: (snapshot: RulesSnapshot) => void }>();
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly host: StudioRulesHost) {
    this.store = new RuleStore(host.configDirectory);
    this.usage = new RuleUsage(host.configDirectory);
    this.definitions = new RuleDefinitions(host.configDirectory);
    try {
      // The person's own config folder (owner-only), so that a file the CLI writes later is seen.
      ensurePrivateFolder(host.configDirectory);
    } catch {
      // Another user's folder: its rules are ignored, and the listing says so.
    }
    this.watch();
  }

  /** What every run the studio starts is given: the rules, their usage and definitions, and the file as it changes. */
  forRuns(): NonNullable<PrepareRunOptions['rules']> {
    const live: LiveRules = {
      subscribe: (root, listener) => {
        const entry = { root, listener };
        this.live.add(entry);
        return () => this.live.delete(entry);
      },
    };
    return { store: this.store, usage: this.usage, definitions: this.definitions, live };
  }

  /**
   * Whether the person listed MCP tool `tool`'s server under `trustedServers` (its annotations may
   * then count in rules); undefined for a tool of no MCP server. As the file was last read.
   */
  readonly serverTrusted = (tool: ToolSpec): boolean | undefined => {
    const server = toolServer(tool, this.host);
    return server === undefined ? undefined : this.set.trustsServer(server);
  };

  /**
   * Another workspace was opened: reads the file for it (a rules file it holds is named in a
   * warning, and its runs follow the file from now on). The page reads the listing itself.
   */
  async workspaceOpened(): Promise<void> {
    await this.load().catch(() => undefined);
  }

  /** Reads the file again, tells the runs following it, and pushes the listing. */
  async refresh(): Promise<void> {
    if (this.closed) return;
    try {
      this.host.emit('rules-changed', await this.list());
    } catch {
      // Reading failed outright (the config folder vanished): the next change or list says why.
    }
  }

  /** The listing for the Rules view. */
  async list(): Promise<RulesListing> {
    const snapshot = await this.load();
    const usage = (await this.usage.read()).rules;
    const ws = this.host.workspace();
    const real = ws ? realPathOf(ws.root) : undefined;
    const tools: OverviewTool[] | undefined = ws
      ? [...ws.tools.list(), ...this.host.mcpTools()].map((tool) => {
          const server = toolServer(tool, this.host);
          return { alias: tool.alias, ...(server && { server }) };
        })
      : undefined;
    return {
      file: snapshot.file,
      state: snapshot.state,
      revision: snapshot.revision,
      problems: snapshot.problems.map((problem) => problemInfo(snapshot.file, problem)),
      warnings: snapshot.warnings,
      rules: rulesOverview(snapshot.rules, {
        ...(real !== undefined && { workspace: real }),
        ...(tools && { tools }),
        usage,
      }),
      trustedServers: (snapshot.rules.trustedServers ?? []).map((entry) => serverWords(entry.server)),
      workspace: real ?? null,
    };
  }

  /** The narrowest allow rule covering waiting call `ref`, and the core's ways to widen it. */
  async propose(ref: CallRef): Promise<RuleProposal> {
    const pending = this.pendingCall(ref);
    await this.load();
    const call = ruleCallOf(pending, this.host);
    const id = this.freeId(ruleIdFor(call.alias, new Date()));
    const rule = narrowestRuleFor(call, { id });
    const suggestions = widen(rule, call).flatMap((widening) => {
      // Only the widenings that put another test on one argument: dropping it ("any value") and
      // every workspace are choices of the form itself.
      const before = new Set((rule.when ?? []).map((condition) => JSON.stringify(condition)));
      const added = (widening.rule.when ?? []).filter((condition) => !before.has(JSON.stringify(condition)));
      return added.length === 1 ? [{ pointer: added[0]!.pointer, label: widening.label, condition: added[0]! }] : [];
    });
    return {
      rule,
      suggestions,
      ...(call.server && { server: { identity: call.server, words: serverWords(call.server) } }),
      workspace: call.workspace ?? null,
    };
  }

  /** `rule` in words, its problems, and with `ref` whether it covers that waiting call. */
  async describe(given: unknown, ref?: CallRef, replaces?: string): Promise<RuleWords> {
    const problems = ruleProblems(given).map((problem) => problemInfo('the rule', problem));
    if (problems.length > 0) return { words: [], problems };
    if (replaces !== undefined) await this.load();
    const pending = ref ? this.findPending(ref) : undefined;
    const rule = this.completed(given as RuleDraft, pending, replaces);
    const words = [describeRule(rule)];
    if (pending?.sinks?.length)
      words.push(
        `${pending.sinks.join(', ')} ${pending.sinks.length === 1 ? 'is a sink' : 'are sinks'} of this tool: a call whose ${pending.sinks.length === 1 ? 'sink carries' : 'sinks carry'} any untrusted text still asks, even under this rule.`,
      );
    return {
      words,
      problems: [],
      ...(ref && {
        call: pending
          ? ruleCoverage(rule, pending, this.host)
          : { covered: false, why: 'The call is no longer waiting.' },
      }),
    };
  }

  /**
   * Saves `draft` (new, or in place of rule `replaces`) if the person says yes in main's dialog
   * (paid for by `press`), then runs waiting call `approve` when the rule covers it and it carries
   * no untrusted text.
   */
  async save(
    draft: RuleDraft,
    options: { replaces?: string; revision?: string; approve?: CallRef },
    press: PersonPress,
  ): Promise<{ saved: boolean; approved: boolean; note: string; listing: RulesListing }> {
    const problems = ruleProblems(draft);
    if (problems.length > 0)
      throw new ContractError(
        'invalid-rule',
        `the rule cannot be saved: ${problems.map((problem) => formatRulesProblem('rule', problem)).join('; ')}`,
      );
    const current = await this.load();
    if (current.state === 'broken' || current.state === 'ignored') throw this.unusable(current);
    const existing = options.replaces === undefined ? undefined : this.ruleById(current, options.replaces);
    if (options.replaces !== undefined && existing === undefined)
      throw new ContractError('not-found', `there is no rule "${options.replaces}" in ${current.file} any more`);
    const pending = options.approve ? this.findPending(options.approve) : undefined;
    const rule = this.completed(
      options.replaces === undefined ? { ...draft, id: this.freeId(draft.id) } : draft,
      pending,
      options.replaces,
    );
    const coverage = pending ? ruleCoverage(rule, pending, this.host) : undefined;
    const runsCall = coverage?.covered === true && pending !== undefined;
    const yes = await this.ask(press, {
      title: existing ? `Change the approval rule "${existing.id}"?` : `Save the approval rule "${rule.id}"?`,
      message: describeRule(rule),
      detail: [
        `It is written to ${this.store.file}, in your config folder, where no workspace can write.`,
        existing ? `The rule now:\n${ruleYaml(existing)}\nThe rule after the change:` : 'The rule:',
        ruleYaml(rule),
        ...(runsCall
          ? [
              `Then the waiting call ${pending.request.callId} of "${pending.request.alias}" runs, with the arguments its card shows.`,
            ]
          : []),
        'If you did not just ask the studio to save this rule, choose Cancel.',
      ].join('\n'),
      confirm: runsCall ? 'Save the rule and run the call' : 'Save the rule',
    });
    if (!yes) return { saved: false, approved: false, note: 'Nothing was saved.', listing: await this.list() };
    await this.write(() =>
      existing ? this.store.replace(existing.id, rule, options.revision) : this.store.add(rule, options.revision),
    );
    if (pending?.request.definitionDigest !== undefined) {
      const spec = toolSpecOf(pending.request.alias, this.host);
      if (spec) await this.definitions.remember(pending.request.definitionDigest, spec).catch(() => undefined);
    }
    await this.refresh();
    let approved = false;
    let note = `Rule "${rule.id}" was saved.`;
    if (options.approve) {
      if (!pending) note += ' The call was no longer waiting.';
      else if (!runsCall) note += ` ${coverage?.why ?? ''}`.trimEnd();
      else {
        const result = this.host.pending.resolve(pending.request.callId, { kind: 'approve' }, pending.request.runId);
        approved = result.ok;
        note += result.ok ? ' The call runs.' : ` The call was not run: ${result.error}`;
      }
    }
    return { saved: true, approved, note, listing: await this.list() };
  }

  /**
   * Turns rule `id` on or off. Only a change that may let calls run without asking (an allow rule
   * on, a deny or ask rule off) needs the person's yes in main's dialog; the others can only make
   * more calls ask or be refused.
   */
  async setEnabled(
    id: string,
    enabled: boolean,
    revision: string | undefined,
    press: PersonPress,
  ): Promise<{ changed: boolean; listing: RulesListing }> {
    const current = await this.load();
    if (current.state === 'broken' || current.state === 'ignored') throw this.unusable(current);
    const rule = this.ruleById(current, id);
    if (!rule) throw new ContractError('not-found', `there is no rule "${id}" in ${current.file} any more`);
    if ((rule.enabled !== false) === enabled) return { changed: false, listing: await this.list() };
    const loosens = enabled ? rule.decision === 'allow' : rule.decision !== 'allow';
    if (loosens) {
      const yes = await this.ask(press, {
        title: `${enabled ? 'Turn on' : 'Turn off'} the approval rule "${id}"?`,
        message: enabled
          ? `${describeRule({ ...rule, enabled: true })}`
          : `Calls the rule ${rule.decision === 'deny' ? 'denies' : 'asks you about'} may then run without asking, under your other rules or the tools' own policies. ${describeRule(rule)}`,
        detail: `${this.store.file}\n${ruleYaml(rule)}\nIf you did not just ask the studio to do this, choose Cancel.`,
        confirm: enabled ? 'Turn it on' : 'Turn it off',
      });
      if (!yes) return { changed: false, listing: await this.list() };
    }
    await this.write(() => this.store.setEnabled(id, enabled, revision));
    await this.refresh();
    return { changed: true, listing: await this.list() };
  }

  /** Deletes rule `id` with the person's yes in main's dialog (paid for by `press`). */
  async remove(
    id: string,
    revision: string | undefined,
    press: PersonPress,
  ): Promise<{ deleted: boolean; listing: RulesListing }> {
    const current = await this.load();
    if (current.state === 'broken' || current.state === 'ignored') throw this.unusable(current);
    const rule = this.ruleById(current, id);
    if (!rule) throw new ContractError('not-found', `there is no rule "${id}" in ${current.file} any more`);
    const yes = await this.ask(press, {
      title: `Delete the approval rule "${id}"?`,
      message: `${describeRule(rule)} Calls it decided are decided by your other rules and the tools' own policies again.`,
      detail: `It is removed from ${this.store.file}:\n${ruleYaml(rule)}\nIf you did not just ask the studio to delete it, choose Cancel.`,
      confirm: 'Delete the rule',
    });
    if (!yes) return { deleted: false, listing: await this.list() };
    await this.write(() => this.store.remove(id, revision));
    await this.refresh();
    return { deleted: true, listing: await this.list() };
  }

  /** Stops watching the config folder. */
  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Reads the file for the open workspace; tells the runs of that workspace when it changed. */
  private async load(): Promise<RulesSnapshot> {
    const ws = this.host.workspace();
    const reading = this.reading.then(() => this.store.load(ws?.root));
    this.reading = reading.catch(() => undefined);
    const snapshot = await reading;
    const before = this.snapshot;
    this.snapshot = snapshot;
    this.set = new RuleSet(snapshot.rules);
    if (ws && (before?.revision !== snapshot.revision || before.state !== snapshot.state))
      for (const entry of this.live) if (entry.root === ws.root) entry.listener(snapshot);
    if (before !== undefined && trustedKey(before) !== trustedKey(snapshot)) this.host.trustedServersChanged?.();
    return snapshot;
  }

  /** Watches the config folder for the rules file and its usage (saved by rename, so the folder). */
  private watch(): void {
    try {
      this.watcher = watch(this.host.configDirectory, (_event, name) => {
        const file = name === null ? '' : String(name);
        if (file !== RULES_FILE_NAME && file !== RULES_USAGE_FILE) return;
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.refresh(), WATCH_DEBOUNCE_MS);
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // No config folder yet: the first save makes it, and the listing is read on demand meanwhile.
      this.watcher = undefined;
    }
  }

  /**
   * Asks the person in main's dialog, paid for by `press` (refused, `no-person-input`, without one;
   * `person-busy` while another question is open; `not-supported` when this host cannot ask).
   */
  private ask(press: PersonPress, question: PersonQuestion): Promise<boolean> {
    return this.host.dialogs.confirm(press, question);
  }

  /** Runs an edit of the store, turning its refusals into the contract's errors; starts watching if the folder was just made. */
  private async write(edit: () => Promise<RulesSnapshot>): Promise<void> {
    try {
      await edit();
    } catch (error) {
      if (error instanceof RulesConflictError) throw new ContractError('rules-changed', error.message);
      if (error instanceof ConfigFileError) throw new ContractError('rules-file-broken', error.message);
      throw error;
    }
    if (!this.watcher && !this.closed) this.watch();
  }

  private unusable(snapshot: RulesSnapshot): ContractError {
    return snapshot.state === 'broken'
      ? new ContractError(
          'rules-file-broken',
          `${snapshot.file} cannot be read, so nothing is changed in it: ${snapshot.problems.map((problem) => formatRulesProblem(snapshot.file, problem)).join('; ')}. Fix the file (or move it away), then try again`,
        )
      : new ContractError('rules-file-broken', `${snapshot.warnings.join('; ')}; nothing is changed in it`);
  }

  private ruleById(snapshot: RulesSnapshot, id: string): Rule | undefined {
    return (snapshot.rules.rules ?? []).find((rule) => rule.id === id);
  }

  /** `id`, or `id-2`, `id-3`... the first no rule of the file has. */
  private freeId(id: string): string {
    const taken = new Set((this.snapshot?.rules.rules ?? []).map((rule) => rule.id));
    if (!taken.has(id)) return id;
    for (let n = 2; ; n += 1) if (!taken.has(`${id}-${n}`)) return `${id}-${n}`;
  }

  /** The rule to save for `draft` (see {@link completedRule}), in place of rule `replaces` when given. */
  private completed(draft: RuleDraft, pending: PendingCall | undefined, replaces?: string): Rule {
    const existing = replaces === undefined || !this.snapshot ? undefined : this.ruleById(this.snapshot, replaces);
    return completedRule(draft, pending, existing);
  }

  private pendingCall(ref: CallRef): PendingCall {
    const pending = this.findPending(ref);
    if (!pending)
      throw new ContractError('not-found', `call ${ref.callId} of run ${ref.runId} is not waiting any more`);
    return pending;
  }

  private findPending(ref: CallRef): PendingCall | undefined {
    return this.host.pending
      .list()
      .find((call) => call.request.runId === ref.runId && call.request.callId === ref.callId);
  }
}

/** The servers a snapshot trusts for rules, comparably. */
function trustedKey(snapshot: RulesSnapshot): string {
  return JSON.stringify(snapshot.state === 'ok' ? (snapshot.rules.trustedServers ?? []) : []);
}

function problemInfo(file: string, problem: RulesProblem): RulesProblemInfo {
  return { ...problem, text: formatRulesProblem(file, problem) };
}

/** A rule as YAML, as the file will hold it (for main's dialog). */
function ruleYaml(rule: Rule): string {
  return stringify(rule, { lineWidth: 0 }).trimEnd();
}
