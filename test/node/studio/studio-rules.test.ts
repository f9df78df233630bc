import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { RuleStore } from '../../../main/core/rules/rule-store.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { TrustStore } from '../../../main/core/trust/trust-store.js';
import { contractStudio, type ContractStudio } from './contract-studio.js';

/** A studio on the example workspace with a config folder of its own (rules, trust). */
async function setUp(): Promise<{ s: ContractStudio; root: string; config: string; store: RuleStore }> {
  const config = path.join(mkdtempSync(path.join(tmpdir(), 'pf-rules-')), 'config');
  mkdirSync(config, { mode: 0o700 });
  const s = contractStudio({ configDirectory: config });
  const state = await s.call('workspace:open-example', {});
  return { s, root: state.root, config, store: new RuleStore(config) };
}

const FILESYSTEM = path.resolve(
  import.meta.dirname,
  '../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

/** Starts a trial of read_page (approval: ask) and waits until it asks. */
async function waitingTrial(s: ContractStudio, name = 'release-notes'): Promise<{ runId: string; callId: string }> {
  const { runId } = await s.call('tool:trial', { alias: 'read_page', arguments: { name } });
  const pending = await s.next('approval-pending', (approval) => approval.runId === runId);
  return { runId, callId: pending.callId };
}

function decisions(events: RunEvent[]): Extract<RunEvent, { type: 'approval-decision' }>[] {
  return events.filter(
    (event): event is Extract<RunEvent, { type: 'approval-decision' }> => event.type === 'approval-decision',
  );
}

describe('approval rules in the studio', () => {
  it('proposes the narrowest rule for a waiting call: this tool, these values, this workspace, this definition', async () => {
    const { s, root } = await setUp();
    const call = await waitingTrial(s);
    const proposal = await s.call('rules:propose', call);
    const real = path.resolve(root);
    expect(proposal.rule).toMatchObject({
      decision: 'allow',
      tool: 'read_page',
      workspace: real,
      when: [{ pointer: '/name', equals: 'release-notes' }],
    });
    expect(proposal.rule.id).toMatch(/^allow-read_page-\d{8}t\d{4}$/);
    expect(proposal.rule.confirmed).toHaveLength(1);
    expect(proposal.workspace).toBe(real);
    expect(proposal.server).toBeUndefined();
    const { confirmed: _confirmed, createdAt: _createdAt, ...draft } = proposal.rule;
    const words = await s.call('rules:describe', { rule: draft, call });
    expect(words.problems).toEqual([]);
    expect(words.words[0]).toBe(
      `Allows calls of tool "read_page" in the workspace ${real} when /name is "release-notes". It covers only the tool definition you confirmed (1); a new or changed tool asks once first. Calls whose arguments carry untrusted text still ask.`,
    );
    expect(words.call).toEqual({ covered: true, why: 'The rule covers this call: saving it runs the call now.' });
    // Widened to any value of /name and every workspace, it still covers the call.
    const wide = await s.call('rules:describe', { rule: { ...draft, when: [], workspace: '*' }, call });
    expect(wide.words[0]).toMatch(/^Allows calls of tool "read_page" in every workspace, whatever the arguments\./);
    // A condition the call does not meet: saving would leave the call waiting, and says why.
    const other = await s.call('rules:describe', {
      rule: { ...draft, when: [{ pointer: '/name', glob: 'draft-*' }] },
      call,
    });
    expect(other.call).toEqual({
      covered: false,
      why: 'The rule does not cover this call (/name matches the glob "draft-*": no, it is "release-notes"), so it stays waiting for you.',
    });
    // Problems name the field and the fix; nothing can be saved then.
    const broken = await s.call('rules:describe', {
      rule: { ...draft, when: [{ pointer: '/name', pattern: '(a' }] },
      call,
    });
    expect(broken.problems[0]).toMatchObject({ field: 'when[0].pattern' });
    expect(broken.problems[0]?.message).toMatch(/^RE2 cannot run this pattern/);
    s.call('run:stop', { runId: call.runId }).catch(() => undefined);
  });

  it('saves only with the person’s yes in main’s dialog, which names the rule; a no writes nothing', async () => {
    const { s, store } = await setUp();
    const call = await waitingTrial(s);
    const { confirmed: _c, createdAt: _d, ...draft } = (await s.call('rules:propose', call)).rule;
    s.person.answers.push(false);
    const refused = await s.call('rules:save', { rule: draft, approve: call });
    expect(refused).toMatchObject({ saved: false, approved: false, note: 'Nothing was saved.' });
    expect(existsSync(store.file)).toBe(false);
    const question = s.person.questions.at(-1)!;
    expect(question.title).toBe(`Save the approval rule "${draft.id}"?`);
    expect(question.message).toMatch(/^Allows calls of tool "read_page"/);
    expect(question.detail).toContain(`id: ${draft.id}`);
    expect(question.detail).toContain('Then the waiting call call-1 of "read_page" runs');
    expect(question.confirm).toBe('Save the rule and run the call');
    // The call still waits.
    expect((await s.call('approval:list', {})).map((approval) => approval.callId)).toEqual([call.callId]);

    const saved = await s.call('rules:save', { rule: draft, approve: call });
    expect(saved).toMatchObject({ saved: true, approved: true, note: `Rule "${draft.id}" was saved. The call runs.` });
    expect(saved.listing.rules.map((row) => row.rule.id)).toEqual([draft.id]);
    const end = await s.ended(call.runId);
    expect(end.status).toBe('ok');
    expect(decisions(s.runEvents(call.runId))[0]?.decision).toMatchObject({ kind: 'approve', source: 'studio' });
    // The rule is in the config folder's file, confirmed on the definition the card showed.
    const onDisk = await store.load();
    expect(onDisk.rules.rules?.[0]).toMatchObject({ id: draft.id, decision: 'allow', tool: 'read_page' });
    expect(onDisk.rules.rules?.[0]?.confirmed).toHaveLength(1);

    // The next such call is allowed by the rule, nobody asked, and its usage reaches the Rules view.
    const again = await s.call('tool:trial', { alias: 'read_page', arguments: { name: 'release-notes' } });
    expect((await s.ended(again.runId)).status).toBe('ok');
    expect(decisions(s.runEvents(again.runId))[0]?.decision).toMatchObject({
      kind: 'approve',
      source: 'policy',
      decidedBy: 'rule',
      rule: draft.id,
    });
    const used = await s.next('rules-changed', (listing) => listing.rules[0]?.lastUsed !== undefined);
    expect(used.rules[0]?.lastUsed).toMatchObject({ alias: 'read_page', count: 1 });
  });

  it('a rule saved while a run waits decides that run’s later calls', async () => {
    const { s, root } = await setUp();
    writeFileSync(path.join(root, 'pages', 'draft-notes.txt'), 'Draft notes.\n');
    writeFileSync(
      path.join(root, 'agents', 'two-reads.lua'),
      "log(#tools.call('read_page', { name = 'release-notes' }))\nlog(#tools.call('read_page', { name = 'draft-notes' }))\n",
    );
    const { runId } = await s.call('run:start', { script: 'agents/two-reads.lua' });
    const first = await s.next('approval-pending', (approval) => approval.runId === runId);
    const {
      confirmed: _c,
      createdAt: _d,
      ...draft
    } = (await s.call('rules:propose', { runId, callId: first.callId })).rule;
    // Any page: the person widens /name before saving.
    const saved = await s.call('rules:save', {
      rule: { ...draft, when: [] },
      approve: { runId, callId: first.callId },
    });
    expect(saved.approved).toBe(true);
    expect((await s.ended(runId)).status).toBe('ok');
    const made = decisions(s.runEvents(runId));
    expect(made.map((event) => [event.decision.kind, event.decision.decidedBy])).toEqual([
      ['approve', 'approver'],
      ['approve', 'rule'],
    ]);
    expect(s.pushed.filter((event) => event.name === 'approval-pending')).toHaveLength(1);
  });

  it('follows the file: an edit from the CLI is pushed to the Rules view, with conflicts and gone tools', async () => {
    const { s, store } = await setUp();
    const empty = await s.call('rules:list', {});
    expect(empty).toMatchObject({ state: 'missing', rules: [], problems: [], warnings: [] });
    await store.add({ id: 'no-reads', decision: 'deny', workspace: '*', tool: 'read_page' });
    await store.add({ id: 'reads', decision: 'allow', workspace: '*', tools: 'read_*' });
    await store.add({ id: 'old-tool', decision: 'allow', workspace: '*', tool: 'fetch_url' });
    const listing = await s.next('rules-changed', (rules) => rules.rules.length === 3);
    expect(listing.state).toBe('ok');
    const row = (id: string) => listing.rules.find((candidate) => candidate.rule.id === id)!;
    expect(row('no-reads').conflicts).toEqual([
      'outranks rule "reads" (allow) for read_page when both match (deny > ask > allow)',
    ]);
    expect(row('reads').conflicts).toEqual([
      'rule "no-reads" (deny) outranks it for read_page when both match (deny > ask > allow)',
    ]);
    expect(row('old-tool').missingTool).toBe('fetch_url');
    expect(row('reads').missingTool).toBeUndefined();
  });

  it('asks before turning a rule off or on only when that may let calls run without asking', async () => {
    const { s, store } = await setUp();
    await store.add({ id: 'allow-echo', decision: 'allow', workspace: '*', tool: 'echo' });
    await store.add({ id: 'deny-echo', decision: 'deny', workspace: '*', tool: 'echo' });
    const { revision } = await s.call('rules:list', {});
    const asked = s.person.questions.length;
    // Off for an allow rule, on for a deny rule: stricter, nobody asked.
    expect((await s.call('rules:set-enabled', { id: 'allow-echo', enabled: false, revision })).changed).toBe(true);
    expect(s.person.questions.length).toBe(asked);
    // Off for a deny rule: looser, asked; a no changes nothing.
    s.person.answers.push(false);
    const no = await s.call('rules:set-enabled', { id: 'deny-echo', enabled: false });
    expect(no.changed).toBe(false);
    expect(s.person.questions.at(-1)?.title).toBe('Turn off the approval rule "deny-echo"?');
    expect((await store.load()).rules.rules?.find((rule) => rule.id === 'deny-echo')?.enabled).toBeUndefined();
    // On again for the allow rule: looser, asked; yes.
    const yes = await s.call('rules:set-enabled', { id: 'allow-echo', enabled: true });
    expect(yes.changed).toBe(true);
    expect(s.person.questions.at(-1)?.title).toBe('Turn on the approval rule "allow-echo"?');
    // A stale revision is refused: another studio or the CLI changed the file since it was shown.
    await store.add({ id: 'ask-echo', decision: 'ask', workspace: '*', tool: 'echo' });
    const stale = await s.fail('rules:set-enabled', { id: 'allow-echo', enabled: false, revision });
    expect(stale.code).toBe('rules-changed');
  });

  it('deletes a rule only with a yes in main’s dialog', async () => {
    const { s, store } = await setUp();
    await store.add({ id: 'deny-echo', decision: 'deny', workspace: '*', tool: 'echo' });
    s.person.answers.push(false);
    expect((await s.call('rules:delete', { id: 'deny-echo' })).deleted).toBe(false);
    expect((await store.load()).rules.rules).toHaveLength(1);
    expect(s.person.questions.at(-1)).toMatchObject({
      title: 'Delete the approval rule "deny-echo"?',
      confirm: 'Delete the rule',
    });
    const done = await s.call('rules:delete', { id: 'deny-echo' });
    expect(done).toMatchObject({ deleted: true, listing: { rules: [] } });
    expect((await s.fail('rules:delete', { id: 'deny-echo' })).code).toBe('not-found');
  });

  it('shows a broken or newer rules file with its problems, applies no rule, and changes nothing in it', async () => {
    const { s, store, config } = await setUp();
    writeFileSync(
      store.file,
      'version: 1\nrules:\n  - id: x\n    decision: maybe\n    workspace: "*"\n    tool: echo\n',
      {
        mode: 0o600,
      },
    );
    const broken = await s.call('rules:list', {});
    expect(broken.state).toBe('broken');
    expect(broken.problems[0]).toMatchObject({ line: 4, field: 'rules[0].decision' });
    expect(broken.problems[0]?.text).toBe(
      `${path.join(config, 'approval-rules.yaml')}:4: rules[0].decision: ${broken.problems[0]?.message}`,
    );
    const refused = await s.fail('rules:save', {
      rule: { id: 'mine', decision: 'allow', workspace: '*', tool: 'echo' },
    });
    expect(refused.code).toBe('rules-file-broken');
    expect(refused.message).toMatch(/Fix the file \(or move it away\), then try again$/);
    writeFileSync(store.file, 'version: 7\nrules: []\n', { mode: 0o600 });
    const newer = await s.next('rules-changed', (listing) => listing.problems.some((p) => p.field === 'version'));
    expect(newer.problems[0]?.message).toMatch(/written by a newer PromptForge/);
    expect(readFileSync(store.file, 'utf8')).toBe('version: 7\nrules: []\n');
  });

  it('names a rules file the workspace holds as ignored', async () => {
    const { s, root } = await setUp();
    mkdirSync(path.join(root, '.promptforge'));
    writeFileSync(path.join(root, '.promptforge', 'approval-rules.yaml'), 'version: 1\nrules: []\n');
    const listing = await s.call('rules:list', {});
    expect(listing.warnings).toEqual([
      `${path.join(root, '.promptforge', 'approval-rules.yaml')} is ignored: approval rules count only in your config folder, where a workspace cannot write them (promptforge rules add)`,
    ]);
  });

  it('carries the rule, the sinks and the server’s claims on a waiting call’s card', async () => {
    const { s, store } = await setUp();
    // An allow rule never confirmed on this definition: the card says it would have applied.
    await store.add({ id: 'reads', decision: 'allow', workspace: '*', tool: 'read_page', sinks: ['/name'] });
    await s.next('rules-changed', (listing) => listing.rules.length === 1);
    const call = await waitingTrial(s);
    const [card] = await s.call('approval:list', {});
    expect(card?.rule).toMatchObject({ ruleId: 'reads', unconfirmed: true });
    expect(card?.rule?.text).toMatch(/^rule "reads" \(allow\) would have applied, but you have not yet confirmed/);
    expect(card?.sinks).toEqual(['/name']);
    // read_page is no MCP tool: no claims, and no trust for rules to speak of.
    expect(card?.annotations).toBeUndefined();
    expect(card?.annotationsTrusted).toBeUndefined();
    s.call('run:stop', { runId: call.runId }).catch(() => undefined);
  });
});

describe('an MCP server’s claims about its tools', () => {
  it('are shown as its claims, with whether the person trusts that server for rules', async () => {
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'pf-rules-')), 'config');
    mkdirSync(config, { mode: 0o700 });
    const folder = mkdtempSync(path.join(tmpdir(), 'pf-rules-mcp-'));
    cpSync(path.resolve(import.meta.dirname, '../../fixtures/catalogs/valid'), folder, { recursive: true });
    mkdirSync(path.join(folder, 'data'));
    const args = [FILESYSTEM, './data'];
    writeFileSync(
      path.join(folder, 'tools.yaml'),
      `${readFileSync(path.join(folder, 'tools.yaml'), 'utf8')}\nfs:\n  kind: mcp\n  description: files\n  command: ${JSON.stringify(process.execPath)}\n  args: ${JSON.stringify(args)}\n  include: [read_text_file, write_file]\n`,
    );
    const trust = new TrustStore(config);
    const workspace = await loadWorkspace(folder);
    await trust.trust(workspace, (await trust.workspaceTrust(workspace)).digest, 'cli --yes');
    const s = contractStudio({ configDirectory: config });
    await s.openFolder(folder);
    await s.call('mcp:list', {});
    const tools = await s.next('workspace-changed', (state) =>
      state.tools.some((tool) => tool.alias === 'fs.write_file'),
    );
    const tool = (alias: string) => tools.tools.find((candidate) => candidate.alias === alias);
    expect(tool('fs.read_text_file')).toMatchObject({
      annotations: { readOnlyHint: true, openWorldHint: false },
      annotationsTrusted: false,
    });
    expect(tool('fs.write_file')?.annotations).toEqual({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: true,
      openWorldHint: false,
    });
    // A tool of no MCP server has neither.
    expect(tool('echo')?.annotations).toBeUndefined();
    expect(tool('echo')?.annotationsTrusted).toBeUndefined();
    // The person lists the server (by how it is reached) under trustedServers, from the CLI say.
    writeFileSync(
      path.join(config, 'approval-rules.yaml'),
      `version: 1\ntrustedServers:\n  - server: { command: ${JSON.stringify([process.execPath, ...args])} }\n`,
      { mode: 0o600 },
    );
    const trusted = await s.next('workspace-changed', (state) =>
      state.tools.some((candidate) => candidate.alias === 'fs.write_file' && candidate.annotationsTrusted === true),
    );
    expect(trusted.tools.find((candidate) => candidate.alias === 'fs.read_text_file')?.annotationsTrusted).toBe(true);
    expect((await s.call('rules:list', {})).trustedServers).toEqual([[process.execPath, ...args].join(' ')]);
  });
});
