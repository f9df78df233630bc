import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRulesText } from '../../../main/core/rules/rules-file.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { runCli, runCliInProcess } from './spawn-cli.js';

// `promptforge rules` and how runs apply the rules: each test has a config folder of its own, so
// the rules it writes are its own. A real loopback server answers the http_get calls rules allow.

const EXIT_DENIED = 5;

function folder(prefix: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
}

let server: Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    requests += 1;
    response.end('hello from loopback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function setup() {
  const config = folder('pf-rules-config-');
  const ws = folder('pf-rules-ws-');
  writeFileSync(
    path.join(ws, 'get.lua'),
    `log(pcall(tools.call, 'http_get', { url = ... or 'http://127.0.0.1:${port}/a' }))`,
  );
  writeFileSync(path.join(ws, 'echo.lua'), `log(pcall(tools.call, 'echo', { text = 'hi' }))`);
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCliInProcess(args, { cwd: ws, env: { PROMPTFORGE_CONFIG_DIR: config, ...env } });
  return { config, ws, cli };
}

describe('promptforge rules', () => {
  it('a --tool this workspace lacks is kept, and a near name is offered with the way to redo the rule', async () => {
    const { cli } = setup();
    const typo = await cli(['rules', 'add', 'allow', '--tool', 'http_gte', '--id', 'typo']);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toContain(
      'no tool "http_gte" in this workspace\'s catalog now: its first call will ask once, and your yes confirms the rule. Did you mean "http_get"? Then remove this rule (promptforge rules rm typo) and add it with --tool http_get',
    );
    const far = await cli(['rules', 'add', 'allow', '--tool', 'weather_lookup', '--id', 'far']);
    expect(far.stderr).toContain(
      'no tool "weather_lookup" in this workspace\'s catalog now: its first call will ask once, and your yes confirms the rule\n',
    );
  });

  it('adds a rule bound to the tool’s definition; a run applies it, says so in --json, and counts its use', async () => {
    const { cli, config, ws } = setup();
    const added = await cli([
      'rules',
      'add',
      'allow',
      '--tool',
      'http_get',
      '--id',
      'local-get',
      '--when',
      `{"pointer":"/url","urlHost":["127.0.0.1:${port}"]}`,
    ]);
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(/confirmed on the current definition of "http_get" \(sha256:[0-9a-f]{12}\)/);
    expect(added.stdout).toContain('added rule local-get');
    const file = parseRulesText(readFileSync(path.join(config, 'approval-rules.yaml'), 'utf8'));
    expect(file.ok && file.file.rules?.[0]).toMatchObject({ id: 'local-get', workspace: ws, tool: 'http_get' });

    const before = requests;
    const run = await cli(['run', 'get.lua', '--approve', 'deny', '--json']);
    expect(run.code).toBe(0);
    expect(requests).toBe(before + 1);
    const decision = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; decision?: unknown })
      .find((event) => event.type === 'approval-decision');
    expect(decision?.decision).toMatchObject({
      kind: 'approve',
      decidedBy: 'rule',
      rule: 'local-get',
      source: 'policy',
    });

    const listed = await cli(['rules', 'list']);
    expect(listed.stdout).toMatch(
      /local-get {2}allow\n {2}Allows calls of tool "http_get" in the workspace .* when \/url is an http\(s\) URL on 127\.0\.0\.1:\d+\./,
    );
    expect(listed.stdout).toMatch(/last decided a call .* \(tool "http_get"; 1 in all\)/);

    const tested = await cli(['rules', 'test', 'http_get', '--args', `{"url":"http://127.0.0.1:${port}/x"}`]);
    expect(tested.stdout).toContain('rule "local-get" decides: allow');
    const other = await cli(['rules', 'test', 'http_get', '--args', '{"url":"http://127.0.0.1:9/"}']);
    expect(other.stdout).toMatch(/no\s+\/url is an http\(s\) URL on 127\.0\.0\.1:\d+ \(its host is 127\.0\.0\.1:9\)/);
    expect(other.stdout).toContain("no rule decides: the tool's own policy");
  });

  it('--fail-on-deny exits 5 when a call was denied, and the transcript records who denied it', async () => {
    const { cli, ws } = setup();
    await cli(['rules', 'add', 'deny', '--tool', 'echo', '--id', 'no-echo']);
    const transcript = path.join(ws, 't.jsonl');
    const plain = await cli(['run', 'echo.lua', '--approve', 'deny', '--transcript', transcript]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('denied by rule "no-echo"');
    expect(readTranscript(transcript).find((event) => event.type === 'approval-decision')).toMatchObject({
      decision: { kind: 'deny', decidedBy: 'rule', rule: 'no-echo' },
    });
    const failing = await cli(['run', 'echo.lua', '--approve', 'deny', '--fail-on-deny']);
    expect(failing.code).toBe(EXIT_DENIED);
    expect(failing.stderr).toContain('1 call was denied (--fail-on-deny): exit 5');
    await cli(['rules', 'disable', 'no-echo']);
    expect((await cli(['run', 'echo.lua', '--fail-on-deny'])).code).toBe(0);
    expect((await cli(['rules', 'rm', 'no-echo'])).stdout).toBe('removed rule no-echo\n');
    expect((await cli(['rules', 'list'])).stdout).toMatch(/^no approval rules/);
  });

  it('lists a rule for a tool the workspace no longer has as harmless', async () => {
    const { cli } = setup();
    await cli(['rules', 'add', 'allow', '--tool', 'gone_tool', '--id', 'old']);
    const listed = await cli(['rules', 'list']);
    expect(listed.stdout).toContain(
      'no tool "gone_tool" in this workspace\'s catalog (harmless: it matches nothing here; remove it with promptforge rules rm old)',
    );
  });

  it.each([
    [['rules'], /rules needs an action: list, add, rm, enable, disable, test/],
    [['rules', 'lsit'], /unknown rules action "lsit"; did you mean list\?/],
    [['rules', 'add', 'maybe', '--tool', 'x'], /rules add takes one decision/],
    [['rules', 'add', 'allow'], /give exactly one of --tool ALIAS, --tools GLOB/],
    [['rules', 'add', 'allow', '--tool', 'x', '--when', 'nope'], /--when nope: write POINTER=VALUE/],
    [['rules', 'add', 'allow', '--tool', 'x', '--sink', 'to'], /--sink to: a JSON pointer starts with "\/"/],
    [['rules', 'test'], /rules test takes one tool alias/],
    [['rules', 'test', 'x', '--args', '[1]'], /--args must be a JSON object/],
    [['rules', 'rm'], /rules rm takes one rule id/],
  ])('%j is a usage error that says what to write', async (args, message) => {
    const { cli } = setup();
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('refuses a rule with a pattern RE2 cannot run, naming the field; nothing is written', async () => {
    const { cli, config } = setup();
    const result = await cli(['rules', 'add', 'deny', '--tool', 'x', '--when', '{"pointer":"/a","pattern":"(?<=a)b"}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/rules\[0\]\.when\[0\]\.pattern: RE2 cannot run this pattern.*lookbehind/);
    expect(() => readFileSync(path.join(config, 'approval-rules.yaml'))).toThrow();
  });

  it('help explains the command and the order', async () => {
    const { cli } = setup();
    const help = await cli(['rules', '--help']);
    expect(help.stdout).toContain('Order for every call: deny rules > ask rules > allow rules');
    expect((await cli(['help', 'run'])).stdout).toContain('--fail-on-deny');
  });
});

describe('a rules file that is broken, foreign or planted', () => {
  it('a malformed file names its line and field, and makes every call ask (auto tools too)', async () => {
    const { cli, config } = setup();
    writeFileSync(path.join(config, 'approval-rules.yaml'), 'version: 1\nrules:\n  - id: a\n    decision: allwo\n', {
      mode: 0o600,
    });
    const listed = await cli(['rules', 'list']);
    expect(listed.stderr).toMatch(/approval-rules\.yaml:4: rules\[0\]\.decision: .*allow, ask, deny/);
    expect(listed.stderr).toContain('no approval rule applies, and every call asks, until the file is fixed');
    const run = await cli(['run', 'echo.lua', '--approve', 'deny']);
    expect(run.stdout).toContain("tools.call('echo') was denied: denied by --approve deny");
    expect(run.stderr).toMatch(/approval-rules\.yaml:4: .*every call asks/);
    expect((await cli(['rules', 'add', 'allow', '--tool', 'echo'])).stderr).toMatch(
      /fix the file before changing it \(nothing was written\)/,
    );
  });

  it('a file from a newer version is refused and nothing applies', async () => {
    const { cli, config } = setup();
    writeFileSync(path.join(config, 'approval-rules.yaml'), 'version: 7\nrules: []\n', { mode: 0o600 });
    const run = await cli(['run', 'echo.lua', '--approve', 'deny']);
    expect(run.stderr).toMatch(/version 7, written by a newer PromptForge.*Update PromptForge/);
    expect(run.stdout).toContain('denied by --approve deny');
  });

  it('rules the workspace writes for itself are ignored, with a warning, wherever it puts them', async () => {
    const { cli, ws } = setup();
    const allowAll = 'version: 1\nrules:\n  - { id: pwn, decision: allow, workspace: "*", tools: "*" }\n';
    mkdirSync(path.join(ws, '.promptforge'));
    writeFileSync(path.join(ws, '.promptforge/approval-rules.yaml'), allowAll);
    writeFileSync(path.join(ws, 'approval-rules.yaml'), allowAll);
    const run = await cli(['run', 'get.lua', '--approve', 'deny']);
    expect(run.stdout).toContain('denied by --approve deny');
    expect(run.stderr).toContain(
      `${path.join(ws, '.promptforge/approval-rules.yaml')} is ignored: approval rules count only in your config folder`,
    );
    expect(run.stderr).toContain(`${path.join(ws, 'approval-rules.yaml')} is ignored`);
  });

  it('a config folder inside the workspace (PROMPTFORGE_CONFIG_DIR pointed there, or linked there) is ignored', async () => {
    const { cli, ws } = setup();
    const inside = path.join(ws, 'cfg');
    mkdirSync(inside, { mode: 0o700 });
    writeFileSync(
      path.join(inside, 'approval-rules.yaml'),
      'version: 1\nrules:\n  - { id: pwn, decision: allow, workspace: "*", tools: "*" }\n',
      { mode: 0o600 },
    );
    const direct = await cli(['run', 'get.lua', '--approve', 'deny'], { PROMPTFORGE_CONFIG_DIR: inside });
    expect(direct.stdout).toContain('denied by --approve deny');
    expect(direct.stderr).toMatch(/is inside the workspace .*its rules are ignored/);
    const link = path.join(folder('pf-rules-link-'), 'cfg');
    symlinkSync(inside, link);
    const linked = await cli(['run', 'get.lua', '--approve', 'deny'], { PROMPTFORGE_CONFIG_DIR: link });
    expect(linked.stdout).toContain('denied by --approve deny');
    expect(linked.stderr).toMatch(/is inside the workspace .*its rules are ignored/);
  });

  it('a rules file that is a symbolic link is not read', async () => {
    const { cli, config } = setup();
    const elsewhere = path.join(folder('pf-rules-elsewhere-'), 'rules.yaml');
    writeFileSync(elsewhere, 'version: 1\nrules:\n  - { id: pwn, decision: allow, workspace: "*", tools: "*" }\n', {
      mode: 0o600,
    });
    symlinkSync(elsewhere, path.join(config, 'approval-rules.yaml'));
    const run = await cli(['run', 'get.lua', '--approve', 'deny']);
    expect(run.stdout).toContain('denied by --approve deny');
    expect(run.stderr).toMatch(/approval-rules\.yaml is a symbolic link; .* ignored/);
  });

  it('a rules file others can write is not the person’s: ignored', async () => {
    const { cli, config } = setup();
    writeFileSync(
      path.join(config, 'approval-rules.yaml'),
      'version: 1\nrules:\n  - { id: pwn, decision: allow, workspace: "*", tools: "*" }\n',
      { mode: 0o666 },
    );
    const { chmodSync } = await import('node:fs');
    chmodSync(path.join(config, 'approval-rules.yaml'), 0o666);
    const run = await cli(['run', 'get.lua', '--approve', 'deny']);
    expect(run.stdout).toContain('denied by --approve deny');
    expect(run.stderr).toMatch(/can be written by other users .* its approval rules are ignored/);
  });
});

describe('two writers at once', () => {
  it('loses no rule when several real processes add rules at the same time', { timeout: 120_000 }, async () => {
    const { config, ws } = setup();
    const count = 5;
    const results = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        runCli(['rules', 'add', 'allow', '--tools', `t${index}.*`, '--all-workspaces', '--id', `r${index}`], {
          cwd: ws,
          env: { PROMPTFORGE_CONFIG_DIR: config },
        }),
      ),
    );
    expect(results.map((result) => result.code)).toEqual(Array(count).fill(0));
    const parsed = parseRulesText(readFileSync(path.join(config, 'approval-rules.yaml'), 'utf8'));
    expect(parsed.ok && parsed.file.rules?.map((rule) => rule.id).sort()).toEqual(
      Array.from({ length: count }, (_, index) => `r${index}`),
    );
  });
});
