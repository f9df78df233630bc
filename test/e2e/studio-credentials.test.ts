import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    await studio.service.deleteKey('openai');
  });
  afterAll(async () => {
    await studio.service.deleteKey('openai');
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
