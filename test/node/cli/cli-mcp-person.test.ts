import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PendingElicitation, PendingSampling } from '../../../common/mcp-person.js';
import type { RunEvent } from '../../../common/run-events.js';
import { main, type CliIo } from '../../../main/cli/cli.js';
import { TerminalApprover } from '../../../main/cli/terminal-approver.js';
import { TerminalMcpPerson } from '../../../main/cli/terminal-mcp-person.js';
import { standInBrowser } from '../../fixtures/stand-in-browser.js';
import { startOAuthFixture } from '../mcp/fixtures/oauth-fixture.js';
import { testPool } from '../run/run-harness.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { firstUnsafe, root } from './spawn-cli.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

const ASKING = path.join(root, 'test/node/mcp/fixtures/asking-server.mjs');
const folders: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

async function workspace(files: Record<string, string>): Promise<string> {
  const folder = mkdtempSync(path.join(tmpdir(), 'pf-cli-mcp-'));
  folders.push(folder);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text);
  await trustForTests(folder);
  return folder;
}

/**
 * The CLI in this process, its stderr watched as it is written: `onStderr` sees each chunk (the
 * person reading the terminal). The keychain is a stand-in (tests/credentials' map store).
 */
async function cli(
  args: string[],
  options: { cwd: string; secrets: ReturnType<typeof mapSecretStore>; onStderr?: (text: string) => void },
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    options.onStderr?.(err);
  });
  const stdin = new PassThrough();
  stdin.end('');
  const io: CliIo = {
    stdin,
    stdout,
    stderr,
    env: { PROMPTFORGE_CONFIG_DIR: process.env['PROMPTFORGE_CONFIG_DIR'] },
    cwd: options.cwd,
    onInterrupt: () => () => undefined,
    secrets: () => options.secrets,
    pool: testPool(),
  };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}

/**
 * The person at the terminal: opens the sign-in URL the CLI prints, once, in a browser (a stand-in
 * that follows the authorization server's redirect back to the CLI's loopback).
 */
function opensPrintedUrl(): (text: string) => void {
  let opened = false;
  return (text) => {
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(text)?.[1];
    if (url && !opened) {
      opened = true;
      void standInBrowser(url);
    }
  };
}

/**
 * A workspace whose tools.yaml names one remote MCP server "web" behind a fresh OAuth fixture, and
 * `promptforge mcp login web` run in it by the person at the terminal.
 */
async function loginToFixture(options: Parameters<typeof startOAuthFixture>[0] = {}) {
  const server = await startOAuthFixture(options);
  cleanups.push(() => server.close());
  const dir = await workspace({ 'tools.yaml': `web:\n  kind: mcp\n  url: ${server.mcpUrl}\n` });
  const secrets = mapSecretStore();
  const login = await cli(['mcp', 'login', 'web', '--workspace', dir], {
    cwd: dir,
    secrets,
    onStderr: opensPrintedUrl(),
  });
  return { server, dir, secrets, login };
}

describe('promptforge mcp login / logout', () => {
  it('prints the URL (never opens it), waits for the browser on loopback, keeps the sign-in; list shows it; logout forgets it', async () => {
    const { server, dir, secrets, login } = await loginToFixture();
    expect(login.stderr).toMatch(
      /promptforge: to sign in to MCP server "web" \(authorization server http:\/\/127\.0\.0\.1:\d+\/?\), open this URL in your browser:/,
    );
    expect(login.stderr).toContain('waiting for the browser to come back (Ctrl-C to stop)');
    expect(login.stdout).toMatch(
      /^MCP server "web": signed in at http:\/\/127\.0\.0\.1:\d+ \(scopes mcp:read, expires \S+, renewed without you\)$/m,
    );
    expect(login.code).toBe(0);
    expect(`${login.stdout}${login.stderr}`).not.toContain(server.issued[0]);
    expect(firstUnsafe(login.stderr)).toBeUndefined();

    const list = await cli(['mcp', 'list', '--workspace', dir], { cwd: dir, secrets });
    expect(list.stdout).toMatch(/^web \(http\): ready$/m);
    expect(list.stdout).toMatch(/^ {2}sign-in: signed in at http:\/\/127\.0\.0\.1:\d+ \(scopes mcp:read/m);
    expect(list.stdout).toMatch(/^ {2}web\.whoami {2}/m);

    const logout = await cli(['mcp', 'logout', 'web', '--workspace', dir], { cwd: dir, secrets });
    expect(logout.stdout).toContain(
      `Signed out of MCP server "web" (${server.mcpUrl}): its tokens are removed from the keychain and revoked by its authorization server.`,
    );
    expect(logout.stderr).toBe('');
    expect(server.revocations.map((request) => request.hint)).toEqual(['refresh_token', 'access_token']);
    expect(secrets.entries.size).toBe(0);
    const after = await cli(['mcp', 'list', '--workspace', dir], { cwd: dir, secrets });
    expect(after.stdout).toMatch(/^ {2}sign-in: not signed in \(promptforge mcp login web\)$/m);
    expect(after.stdout).toMatch(/needs you to sign in; sign in with `promptforge mcp login web`/);
    expect(after.code).toBe(1);
  });

  it('logout says plainly when the authorization server could not be told to revoke the tokens', async () => {
    const { server, dir, secrets, login } = await loginToFixture({ revocation: 'none' });
    expect(login.code).toBe(0);
    const logout = await cli(['mcp', 'logout', 'web', '--workspace', dir], { cwd: dir, secrets });
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain(
      `Signed out of MCP server "web" (${server.mcpUrl}): its tokens are removed from the keychain.`,
    );
    expect(logout.stderr).toMatch(
      /^But the authorization server http:\/\/127\.0\.0\.1:\d+\/? was not told to revoke the tokens: its metadata names no revocation endpoint; they stay valid there until they expire \(or revoke them in that server's account settings\)\.$/m,
    );
    expect(secrets.entries.size).toBe(0);
  });

  it('a sign-in the authorization server refuses exits 1 with the reason', async () => {
    const { login } = await loginToFixture({ authorize: 'wrong-state' });
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/promptforge: signing in to MCP server "web": the redirect's state does not match/);
  });

  it('usage: a name tools.yaml does not define (with the nearest), no name, a stdio server', async () => {
    const dir = await workspace({
      'tools.yaml': `web:\n  kind: mcp\n  url: http://127.0.0.1:9/mcp\nlocal:\n  kind: mcp\n  command: node\n`,
    });
    const secrets = mapSecretStore();
    const typo = await cli(['mcp', 'login', 'wb', '--workspace', dir], { cwd: dir, secrets });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown MCP server "wb"; did you mean web\?/);
    const none = await cli(['mcp', 'login', '--workspace', dir], { cwd: dir, secrets });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/mcp login takes one server name: promptforge mcp login NAME/);
    const stdio = await cli(['mcp', 'login', 'local', '--workspace', dir], { cwd: dir, secrets });
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toMatch(/MCP server "local" is a stdio server: it has no sign-in/);
    const help = await cli(['mcp', 'login', '--help'], { cwd: dir, secrets });
    expect(help.stdout).toMatch(/^Usage: promptforge mcp login NAME/);
  });
});

describe('an MCP server asking during promptforge run', () => {
  it('with no terminal, an elicitation and a sampling request are declined, and the transcript says so', async () => {
    const dir = await workspace({
      'tools.yaml': `ask:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(ASKING)}]\n  approval: auto\n`,
      'agent.lua': `print(tools.call('ask.elicit', { variant = 'form' }))\nprint(tools.call('ask.sample', { variant = 'ok' }))\n`,
    });
    const result = await cli(['run', 'agent.lua', '--json', '--transcript', path.join(dir, 't.jsonl')], {
      cwd: dir,
      secrets: mapSecretStore(),
    });
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    expect(events.find((event) => event.type === 'mcp-elicitation')).toMatchObject({
      action: 'decline',
      source: 'policy',
    });
    expect(events.find((event) => event.type === 'mcp-sampling')).toMatchObject({
      decision: 'declined',
      source: 'policy',
    });
    expect(result.code).toBe(0);
  });
});

/** A TerminalMcpPerson on streams: what it printed, and a way to type. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
    for (const waiter of [...waiters])
      if (printed.includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
  });
  const person = new TerminalMcpPerson(new TerminalApprover({ input, output }));
  return {
    person,
    printed: () => printed,
    /** Waits until `prompt` is printed (for the n-th time), then types `line`. */
    answer: async (prompt: string, line: string) => {
      if (!printed.includes(prompt)) await new Promise<void>((resolve) => waiters.push({ text: prompt, resolve }));
      input.write(`${line}\n`);
    },
  };
}

const FORM: PendingElicitation = {
  id: 'elicitation-1',
  runId: 'run-1',
  server: 'ask',
  callId: 'call-2',
  alias: 'ask.elicit',
  mode: 'form',
  message: 'Who are you?\u001b[2J',
  fields: [
    { kind: 'string', name: 'name', required: false, default: 'Ada' },
    { kind: 'number', name: 'age', integer: true, required: true, minimum: 0 },
    { kind: 'boolean', name: 'agree', required: false },
    {
      kind: 'choice',
      name: 'color',
      required: false,
      options: [
        { value: 'red', title: 'Red' },
        { value: 'green', title: 'Green' },
      ],
    },
  ],
  askedAt: new Date().toISOString(),
};

describe('the terminal as the person', () => {
  it('a form from the schema: empty takes the default, a wrong value is asked again, choices by number', async () => {
    const t = terminal();
    const answer = t.person.elicitor.ask(FORM, new AbortController().signal);
    // Typed ahead, as a person may: the lines wait on the terminal's line queue.
    const lines = [
      'a', // answer
      '', // name: the default
      'many', // age: not a number, asked again
      '-3', // age: a number, but the form refuses it below
      'y', // agree
      '2', // color: the second option
      'a', // the form again, after "Not accepted"
      '',
      '36',
      'n',
      '',
    ];
    for (const line of lines) await t.answer('', line);
    expect(await answer).toEqual({ action: 'accept', content: { name: 'Ada', age: 36, agree: false } });
    const printed = t.printed();
    expect(printed).toContain(
      'MCP server "ask" (during call-2, ask.elicit) asks you to fill in a form. Its words (untrusted):',
    );
    expect(printed).toContain('    type a number\n');
    expect(printed).toContain('Not accepted: field "age" must be at least 0');
    expect(printed).toContain('    2. Green\n');
    expect(firstUnsafe(printed)).toBeUndefined();
  });

  it('a URL is shown with its host and never opened; the person accepts or declines', async () => {
    const t = terminal();
    const pending: PendingElicitation = {
      ...FORM,
      mode: 'url',
      fields: undefined,
      url: 'https://example.com/consent',
      urlHost: 'example.com',
    } as PendingElicitation;
    const answer = t.person.elicitor.ask(pending, new AbortController().signal);
    await t.answer('[a]ccept (I will open it), [d]ecline, [c]ancel: ', 'd');
    expect(await answer).toEqual({ action: 'decline' });
    expect(t.printed()).toContain('URL: https://example.com/consent\n  Host: example.com\n');
    expect(t.printed()).toContain('It is not opened for you');
  });

  it('sampling shows the model, the limit (clamped) and the messages; edit and deny', async () => {
    const pending: PendingSampling = {
      id: 'sampling-1',
      runId: 'run-1',
      server: 'ask',
      callId: 'call-3',
      alias: 'ask.sample',
      messages: [{ role: 'user', text: 'Summarise \u202eevil' }],
      systemPrompt: 'Be terse',
      model: { alias: 'm', provider: 'openai-compatible', modelId: 'scripted' },
      maxTokens: 4096,
      requestedMaxTokens: 1_000_000,
      askedAt: new Date().toISOString(),
    };
    const t = terminal();
    const edited = t.person.sampler.ask(pending, new AbortController().signal);
    await t.answer('[a]pprove, [e]dit, [d]eny: ', 'e');
    await t.answer('(empty keeps theirs): ', 'Say hi.');
    await t.answer('Token limit (empty keeps 4096): ', '20');
    expect(await edited).toEqual({
      kind: 'approve-edited',
      messages: [{ role: 'user', text: 'Say hi.' }],
      maxTokens: 20,
    });
    expect(t.printed()).toContain('it asked for 1000000; the host allows no more than 4096');
    expect(t.printed()).toContain('Model: m (openai-compatible scripted)');
    expect(firstUnsafe(t.printed())).toBeUndefined();

    const u = terminal();
    const denied = u.person.sampler.ask(pending, new AbortController().signal);
    await u.answer('[a]pprove, [e]dit, [d]eny: ', 'd');
    await u.answer('Reason: ', 'no');
    expect(await denied).toEqual({ kind: 'deny', reason: 'no' });
  });
});
