import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fragmentLength } from '../../../main/core/secrets/redact.js';
import { readTranscript } from '../../../main/core/transcript/transcript-reader.js';
import { startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { HEADER_SECRET, isRedacted, LEAKS, PROVIDER_KEY } from '../../fixtures/secret-leaks.js';
import { startServer } from './helpers.js';
import { runCliInProcess } from '../cli/spawn-cli.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

/**
 * Every secret a run knows, through the real CLI: the provider key (from OPENAI_API_KEY), an
 * http tool's keychain header secret, and a command tool's secret variable. The model endpoint
 * returns the key in two halves that the script joins, the http tool's server and the command
 * print their secrets in halves, the script logs every leak of the shared corpus and then fails
 * with the joined key in its error. Nothing of 8 characters or more of any secret may reach
 * stdout, stderr or the transcript.
 */

const TOKEN = 'tok-E2E-9f8e7d6c5b4a3210fedcbaZ';
const TOKEN_VARIABLE = 'PF_E2E_API_TOKEN';

function holdsFragment(text: string, secret: string): boolean {
  const n = fragmentLength(secret.length);
  const folded = text.toLowerCase();
  for (let i = 0; i + n <= secret.length; i += 1)
    if (folded.includes(secret.slice(i, i + n).toLowerCase())) return true;
  return false;
}

let model: ScriptedServer;
let api: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  model = await startScriptedServer((body) => {
    const first = (body.messages[0] as { content?: string } | undefined)?.content === 'first half';
    return { content: first ? PROVIDER_KEY.slice(0, 20) : PROVIDER_KEY.slice(20) };
  });
  api = await startServer((request, _body, response) => {
    const got = String(request.headers['x-api-key']);
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ first: got.slice(0, 17), second: got.slice(17).toUpperCase() }));
  });
});
afterAll(async () => {
  await model.close();
  await api.close();
});

function workspace(): { dir: string; script: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-e2e-secrets-'));
  mkdirSync(path.join(dir, 'agents'));
  writeFileSync(path.join(dir, 'promptforge.yaml'), 'defaultModel: fast\n');
  writeFileSync(path.join(dir, 'models.yaml'), 'fast:\n  provider: openai\n  model: gpt-test\n');
  writeFileSync(
    path.join(dir, 'tools.yaml'),
    [
      'api:',
      '  kind: http',
      `  url: ${api.url}/echo`,
      '  approval: auto',
      '  headers:',
      '    X-Api-Key: { secret: api }',
      'printer:',
      '  kind: command',
      `  command: [node, -e, "const t = process.env.${TOKEN_VARIABLE}; console.log(t.slice(0, 15)); console.log(t.slice(15))"]`,
      `  env: [${TOKEN_VARIABLE}]`,
      '  approval: auto',
      '',
    ].join('\n'),
  );
  const leaks = LEAKS.map((leak) => `log([==[${leak.text}]==])`).join('\n');
  const script = [
    "local a = models.chat({ { role = 'user', content = 'first half' } })",
    "local b = models.chat({ { role = 'user', content = 'second half' } })",
    'local key = a.content .. b.content',
    "log('joined: ' .. key)",
    "local h = tools.call('api', {})",
    "log('http: ' .. h)",
    "local c = tools.call('printer', {})",
    "log('command: ' .. c)",
    leaks,
    "error('the key is ' .. key .. ', the header says ' .. h .. ', the token is ' .. c)",
    '',
  ].join('\n');
  writeFileSync(path.join(dir, 'agents', 'leak.lua'), script);
  return { dir, script: 'agents/leak.lua' };
}

function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, {
    cwd,
    env: { OPENAI_API_KEY: PROVIDER_KEY },
    secrets: mapSecretStore({ api: HEADER_SECRET }),
  });
}

describe('no secret the run knows reaches stdout, stderr or the transcript', () => {
  it('provider key in halves, header secret echoed in halves and upper-cased, command token in halves, the whole corpus', async () => {
    process.env[TOKEN_VARIABLE] = TOKEN;
    try {
      const { dir, script } = workspace();
      // Not about workspace trust: a restricted run would refuse the command tool and the secret header.
      await trustForTests(dir);
      const transcript = path.join(dir, 'leak.jsonl');
      const result = await cli(
        [
          'run',
          script,
          '--base-url',
          model.url,
          '--model-id',
          'gpt-test',
          '--transcript',
          transcript,
          '--approve',
          'auto',
        ],
        dir,
      );
      // The secrets were really used.
      expect(model.authHeaders.at(-1)).toBe(`Bearer ${PROVIDER_KEY}`);
      expect(api.requests.at(-1)?.headers['x-api-key']).toBe(HEADER_SECRET);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('agents/leak.lua:');
      expect(result.stderr).toContain('the key is [redacted]');
      const text = readFileSync(transcript, 'utf8');
      for (const [where, output] of [
        ['stdout', result.stdout],
        ['stderr', result.stderr],
        ['transcript', text],
      ] as const) {
        for (const secret of [PROVIDER_KEY, HEADER_SECRET, TOKEN])
          expect({ where, secret, leaked: holdsFragment(output, secret) }).toEqual({ where, secret, leaked: false });
        expect(output).not.toContain(PROVIDER_KEY.slice(10, 30));
      }
      // Each corpus leak the script logged left exactly what the corpus says.
      const logs = readTranscript(transcript).flatMap((event) => (event.type === 'log' ? [event.text] : []));
      expect(logs.slice(0, 3)).toEqual([
        'joined: [redacted][redacted]',
        expect.stringMatching(/^http: /),
        expect.stringMatching(/^command: /),
      ]);
      const corpus = logs.slice(3, 3 + LEAKS.length);
      expect(corpus).toHaveLength(LEAKS.length);
      LEAKS.forEach((leak, i) =>
        expect({ name: leak.name, ok: isRedacted(corpus[i]!, leak) }).toEqual({ name: leak.name, ok: true }),
      );
    } finally {
      delete process.env[TOKEN_VARIABLE];
    }
  });
});
