import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadWorkspace } from '../main/core/catalog/workspace.js';
import { TrustStore } from '../main/core/trust/trust-store.js';
import { StudioHarness } from '../test/e2e/bridge.js';
import { median, type BenchRow } from './bench-kit.js';
import { noSecrets } from '../test/fixtures/stubs.js';

/** A workspace of 30 command tools and 5 MCP servers (none of which ever starts here) and one agent. */
async function workspace(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `pf-bench-open-${name}-`));
  const lines: string[] = [];
  for (let index = 0; index < 30; index += 1)
    lines.push(
      `cmd_${index}:`,
      '  kind: command',
      '  description: d',
      `  command: [node, tools/t${index}.mjs]`,
      '  parameters: {type: object}',
    );
  for (let index = 0; index < 5; index += 1)
    lines.push(`srv_${index}:`, '  kind: mcp', '  command: npx', `  args: [-y, "pkg-${index}@1.0.0"]`);
  await writeFile(path.join(dir, 'tools.yaml'), `${lines.join('\n')}\n`);
  await mkdir(path.join(dir, 'tools'));
  for (let index = 0; index < 30; index += 1)
    await writeFile(path.join(dir, 'tools', `t${index}.mjs`), `// ${index}\n`);
  await mkdir(path.join(dir, 'agents'));
  await writeFile(path.join(dir, 'agents', `agent-${name}.lua`), "log('hi')\n");
  return dir;
}

/**
 * Open a folder to first paint, in the built studio in Chromium through the e2e bridge: the
 * person picks "Open a folder…" in the command palette (the folder picker is a stand-in that
 * answers at once) and the explorer paints the folder's agent. The same workspace content, once
 * trusted and once restricted (its banner painted too), alternating, in one run.
 */
export default async function run(): Promise<BenchRow[]> {
  const dirs = { trusted: await workspace('trusted'), restricted: await workspace('restricted') };
  let next = dirs.trusted;
  const harness = new StudioHarness({
    secrets: noSecrets,
    chooseFolder: async () => next,
    viewport: { width: 1440, height: 900 },
  });
  const times = { trusted: [] as number[], restricted: [] as number[] };
  try {
    await harness.open();
    const store = new TrustStore(harness.configDirectory);
    const trusted = await loadWorkspace(dirs.trusted);
    await store.trust(trusted, (await store.workspaceTrust(trusted)).digest, 'cli --yes');
    const page = harness.page;
    for (let round = 0; round < 8; round += 1) {
      for (const which of ['restricted', 'trusted'] as const) {
        next = dirs[which];
        await page.keyboard.press('ControlOrMeta+Shift+P');
        const option = page.getByRole('option', { name: /^Open a folder/ });
        await option.waitFor();
        const start = performance.now();
        await option.click();
        await harness.agentButton(`agent-${which}`).waitFor();
        if (which === 'restricted') await page.getByRole('button', { name: 'Review and trust…' }).first().waitFor();
        const elapsed = performance.now() - start;
        if (round > 0) times[which].push(elapsed);
      }
    }
  } finally {
    await harness.close();
    await Promise.all(Object.values(dirs).map((dir) => rm(dir, { recursive: true, force: true })));
  }
  return [
    {
      name: 'studio: open a folder to first paint, trusted (explorer shows its agent)',
      unit: 'ms',
      median: median(times.trusted),
      baseline: {
        name: 'the same content, restricted (explorer and banner painted)',
        median: median(times.restricted),
      },
      ratio: median(times.trusted) / median(times.restricted),
      target: '≤ 1.5×',
      samples: times.trusted.length,
      how: "The built renderer in Debian Chromium through the e2e bridge, with the real core: \"Open a folder…\" chosen in the command palette (the folder picker is a stand-in that answers at once) until the explorer shows the folder's agent (and, restricted, the banner). Two folders of the same content (30 command tools with their scripts, 5 MCP servers that never start), one trusted ahead in the harness's config folder; alternating, one warm-up round, seven timed rounds each; the times include Playwright's wait.",
    },
  ];
}
