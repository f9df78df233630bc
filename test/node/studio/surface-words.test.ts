import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { wordsFor, type SurfaceWords } from '../../../main/core/surface-words.js';
import { contractStudio } from './contract-studio.js';

/** Every piece of advice a surface gives, with sample arguments. */
function allAdvice(words: SurfaceWords): string[] {
  return [
    words.noModelChosen,
    words.unknownModel('m', ['a', 'b']),
    words.replayModel('m'),
    words.keyWhere('openai'),
    words.setSecret('search-proxy'),
    words.trustWorkspace,
    words.trustAgain,
    words.allowKeyOrigin('openai', 'https://proxy.example', 'm'),
    words.mcpSignIn('search'),
    words.forkAnyway,
    words.unavailableChoice('m', 'models.yaml has an error'),
  ];
}

// The studio has no flags and no commands to type; the terminal has no buttons and no views.
const CLI_WORDS = /(^|\s)--[a-z]|`?promptforge (keys|trust|run|rules|mcp|test)\b/;
const STUDIO_WORDS = /Credentials|Trust view|Review and trust|model list|Run offline|Fork anyway|banner/;

describe('the advice the core gives is worded per surface, from one place', () => {
  it('the studio names no CLI flag or command; the terminal names no studio button or view', () => {
    for (const text of allAdvice(wordsFor('studio'))) expect(text, text).not.toMatch(CLI_WORDS);
    for (const text of allAdvice(wordsFor('cli'))) expect(text, text).not.toMatch(STUDIO_WORDS);
    // Nothing is left unsaid on either side.
    for (const text of [...allAdvice(wordsFor('studio')), ...allAdvice(wordsFor('cli'))])
      expect(text.length).toBeGreaterThan(5);
  });

  it("a studio run's own messages (no model, no key, a restricted tool) use the studio's words", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'pf-words-'));
    mkdirSync(path.join(root, 'agents'));
    writeFileSync(path.join(root, 'models.yaml'), 'gpt:\n  provider: openai\n  model: gpt-4o-mini\n');
    writeFileSync(
      path.join(root, 'tools.yaml'),
      'build:\n  kind: command\n  command: [node, build.mjs]\n  description: builds\n',
    );
    writeFileSync(
      path.join(root, 'agents/no-model.lua'),
      `local ok, err = pcall(models.chat, { { role = 'user', content = 'hi' } }) log(tostring(err))`,
    );
    writeFileSync(
      path.join(root, 'agents/no-key.lua'),
      `local ok, err = pcall(models.chat, { { role = 'user', content = 'hi' } }, { model = 'gpt' }) log(tostring(err))`,
    );
    writeFileSync(
      path.join(root, 'agents/restricted.lua'),
      `local ok, err = pcall(tools.call, 'build', {}) log(tostring(err))`,
    );
    const s = contractStudio();
    await s.openFolder(root);
    const logOf = async (script: string): Promise<string> => {
      const { runId } = await s.call('run:start', { script });
      await s.ended(runId);
      return s
        .runEvents(runId)
        .flatMap((event) => (event.type === 'log' ? [event.text] : []))
        .join('\n');
    };
    const noModel = await logOf('agents/no-model.lua');
    expect(noModel).toContain('no model chosen: pick one in the model list above the editor');
    const noKey = await logOf('agents/no-key.lua');
    expect(noKey).toContain('no key for OpenAI: set one in Credentials');
    const restricted = await logOf('agents/restricted.lua');
    expect(restricted).toContain('use Review and trust… on the restricted-mode banner');
    for (const text of [noModel, noKey, restricted]) expect(text).not.toMatch(CLI_WORDS);
  });
});
