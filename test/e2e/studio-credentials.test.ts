import { appendFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyringSecretStore } from '../../main/core/credentials/keyring-secret-store.js';
import { workspaceSecretAccount } from '../../main/core/trust/secret-scope.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { pressStandIn } from '../node/studio/press-stand-in.js';
import { StudioHarness } from './bridge.js';

describe('studio: Credentials set and delete a key in the real keychain, write-only', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  // Unique per run, so a match can only come from this test.
  const secret = `sk-e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
    // Start from a known state: no openai key under the e2e service.
    await studio.service.deleteKey('openai', pressStandIn());
  });
  afterAll(async () => {
    await studio.service.deleteKey('openai', pressStandIn());
    await studio.close();
  });

  const row = () => studio.page.getByRole('table', { name: 'Provider keys' }).locator('tr[data-provider="openai"]');

  it('shows keychain status per provider with its environment variable', async () => {
    await studio.page.getByRole('button', { name: 'Credentials' }).click();
    await studio.page.getByRole('heading', { name: 'Credentials' }).waitFor();
    await row().waitFor();
    expect(await row().getByLabel('OpenAI key status').textContent()).toBe('not set');
    expect(await row().locator('td').nth(1).textContent()).toBe('OPENAI_API_KEY');
  });

  it('sets the key: status turns "set", the field is cleared, and the key never reaches the page', async () => {
    const field = row().getByLabel('OpenAI API key');
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill(secret);
    await row().getByRole('button', { name: 'Set OpenAI key' }).click();
    await studio.page.getByText('Stored the OpenAI key in the keychain.').waitFor();
    await expect.poll(() => row().getByLabel('OpenAI key status').textContent()).toBe('set');
    expect(await field.inputValue()).toBe('');
    expect(await studio.service.keyStatus()).toMatchObject({ available: true });
    expect((await studio.service.keyStatus()).keys.find((key) => key.provider === 'openai')?.set).toBe(true);

    expect(await studio.page.content()).not.toContain(secret);
    expect(JSON.stringify(studio.results)).not.toContain(secret);
    expect(studio.results.length).toBeGreaterThan(3);
    await studio.screenshot('credentials');
  });

  it('replaces and then deletes the key after a confirmation', async () => {
    await row().getByLabel('OpenAI API key').fill(`${secret}-2`);
    await row().getByRole('button', { name: 'Replace OpenAI key' }).click();
    await studio.page.getByText('Replaced the OpenAI key in the keychain.').waitFor();
    await row().getByRole('button', { name: 'Delete OpenAI key' }).click();
    await row().getByRole('button', { name: 'Confirm delete OpenAI key' }).click();
    await studio.page.getByText('Deleted the OpenAI key.').waitFor();
    await expect.poll(() => row().getByLabel('OpenAI key status').textContent()).toBe('not set');
    expect(await studio.page.content()).not.toContain(secret);
    expect(JSON.stringify(studio.results)).not.toContain(secret);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});

describe('studio: Credentials sets a secret tools.yaml names, write-only, in the real keychain', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  // Unique per run, so a match can only come from this test.
  const unique = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const name = `e2e-search-${unique}`;
  const value = `sk-e2e-secret-${unique}`;
  // A secret is kept for its workspace and where it goes: listed by its scoped name NAME@DESTINATION.
  const scoped = `${name}@https://search.example.com`;
  const noun = `${name} secret for https://search.example.com`;

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
  });
  afterAll(async () => {
    await studio.service.deleteKey({ secret: scoped }, pressStandIn()).catch(() => undefined);
    await studio.close();
  });

  const section = () => studio.page.getByRole('region', { name: 'Secrets named in tools.yaml' });
  const row = () =>
    studio.page.getByRole('table', { name: 'Secrets named in tools.yaml' }).locator(`tr[data-secret="${scoped}"]`);

  it('says when tools.yaml names no secrets, and lists one as soon as tools.yaml names it', async () => {
    await studio.page.getByRole('button', { name: 'Credentials', exact: true }).click();
    await section().getByText('The open workspace names no secrets.').waitFor();

    await appendFile(
      path.join(studio.service.workspaceRoot!, 'tools.yaml'),
      [
        '',
        'e2e_search:',
        '  description: Search through the proxy',
        '  kind: http',
        '  url: https://search.example.com/v1/query',
        '  headers:',
        `    Authorization: { secret: ${name} }`,
        '  parameters:',
        '    type: object',
        '    properties:',
        '      query: { type: string }',
        '',
      ].join('\n'),
    );
    // The view refreshes on the workspace-changed event the file watcher pushes.
    await row().waitFor();
    expect(await row().getByLabel(`${noun} status`).textContent()).toBe('not set');
    expect(await row().locator('td').first().textContent()).toBe('e2e_search (header Authorization)');
    // The name as tools.yaml writes it, then where its value goes.
    expect(await row().locator('th code').textContent()).toBe(name);
    expect(await row().locator('th .secret-destination').textContent()).toBe('for https://search.example.com');
  });

  it('sets the secret: status turns "set", and the value never reaches the page or a response', async () => {
    const field = row().getByLabel(`Value of the ${noun}`);
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill(value);
    // The keychain's status read is held back (a slow keychain): the row says "set" from the
    // store's own answer, without waiting for it (it used to say "not set" until the read came).
    const service = studio.service;
    const realStatus = service.keyStatus.bind(service);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    service.keyStatus = async () => {
      await held;
      return realStatus();
    };
    try {
      await row()
        .getByRole('button', { name: `Set ${noun}` })
        .click();
      await studio.page.getByText(`Stored the ${noun} in the keychain.`).waitFor();
      expect(await row().getByLabel(`${noun} status`).textContent()).toBe('set');
    } finally {
      release();
      service.keyStatus = realStatus;
    }
    await expect.poll(() => row().getByLabel(`${noun} status`).textContent()).toBe('set');
    expect(await field.inputValue()).toBe('');
    expect((await studio.service.keyStatus()).secrets).toContainEqual({
      name: scoped,
      usedBy: ['e2e_search (header Authorization)'],
      set: true,
    });
    // The workspace's own entry for that destination (under the e2e service); the bare name has none.
    const keychain = new KeyringSecretStore({ service: 'PromptForge Studio (e2e)' });
    const account = workspaceSecretAccount(await realpath(studio.service.workspaceRoot!), scoped);
    expect(await keychain.get(account)).toBe(value);
    expect(await keychain.get(name)).toBeUndefined();

    expect(await studio.page.content()).not.toContain(value);
    expect(JSON.stringify(studio.results)).not.toContain(value);
    expect(JSON.stringify(studio.calls)).not.toContain(value);
    await studio.screenshot('credentials-secrets');
  });

  it('has no serious axe violations with the secrets section, in both themes', async () => {
    for (const theme of ['dark', 'light'] as const) {
      const other = theme === 'dark' ? 'light' : 'dark';
      const toggle = studio.page.getByRole('button', { name: `Switch to ${theme} theme` });
      if (await toggle.isVisible()) await toggle.click();
      await studio.page.getByRole('button', { name: `Switch to ${other} theme` }).waitFor();
      expect(await studio.page.locator('html').getAttribute('data-theme')).toBe(theme);
      await row().waitFor();
      await expectNoSeriousAxeViolations(studio.page, `the credentials with a tools.yaml secret (${theme})`);
    }
  });

  it('deletes the secret after a confirmation', async () => {
    await row()
      .getByRole('button', { name: `Delete ${noun}` })
      .click();
    await row()
      .getByRole('button', { name: `Confirm delete ${noun}` })
      .click();
    await studio.page.getByText(`Deleted the ${noun}.`).waitFor();
    await expect.poll(() => row().getByLabel(`${noun} status`).textContent()).toBe('not set');
    expect(await studio.page.content()).not.toContain(value);
    expect(JSON.stringify(studio.results)).not.toContain(value);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
