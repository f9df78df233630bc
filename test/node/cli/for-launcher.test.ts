import { describe, expect, it } from 'vitest';
import { forLauncher } from '../../../main/cli/cli-io.js';

describe('forLauncher: the commands a message names, as the person can paste them', () => {
  const npx = { npm_command: 'exec' };

  it('writes `npx promptforge` under npx, once, however often a message goes through it', () => {
    const fix = 'trust it with `promptforge trust --workspace /w --yes`; then `promptforge run a.lua`';
    const once = forLauncher(fix, npx);
    expect(once).toBe('trust it with `npx promptforge trust --workspace /w --yes`; then `npx promptforge run a.lua`');
    expect(forLauncher(once, npx)).toBe(once);
    expect(forLauncher('see `promptforge test tests/`', npx)).toBe('see `npx promptforge test tests/`');
  });

  it('leaves the text alone outside npm, and never touches paths or other words', () => {
    expect(forLauncher('promptforge run a.lua', {})).toBe('promptforge run a.lua');
    expect(forLauncher('/opt/bin/promptforge run a.lua and my-promptforge run', npx)).toBe(
      '/opt/bin/promptforge run a.lua and my-promptforge run',
    );
  });
});
