import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadWorkspace } from '../main/core/catalog/workspace.js';
import { manifestDigest, workspaceManifest } from '../main/core/trust/workspace-manifest.js';
import { TrustStore } from '../main/core/trust/trust-store.js';
import { median, type BenchRow } from './bench-kit.js';
import { StudioService } from '../main/core/studio/studio-service.js';
import { WorkerPool } from '../main/core/run/worker-pool.js';
import { noSecrets } from '../test/fixtures/stubs.js';

/** A tools.yaml of `count` tools: a third each command (with a script file of its own), http with a secret, MCP server. */
function toolsYaml(count: number): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const kind = index % 3;
    lines.push(`tool_${index}:`, `  description: Generated tool number ${index}`);
    if (kind === 0) lines.push('  kind: command', `  command: [node, tools/t${index}.mjs]`, '  env: [HOME]');
    else if (kind === 1)
      lines.push(
        '  kind: http',
        `  url: https://api${index}.example.com/t`,
        '  headers: {Authorization: {secret: api}}',
        '  approval: auto',
      );
    else
      lines.push(
        '  kind: mcp',
        '  command: npx',
        `  args: [-y, "pkg-${index}@1.0.0", tools/t${index - 2}.mjs]`,
        '  env: {NODE_OPTIONS: "--max-old-space-size=64"}',
      );
    if (kind !== 2) lines.push('  parameters: {type: object}');
  }
  return `${lines.join('\n')}\n`;
}

/** `StudioService.openWorkspace` of `dir`, restricted and trusted, alternating, nine of each. */
async function openTimes(dir: string): Promise<{ trusted: number[]; restricted: number[] }> {
  const config = await mkdtemp(path.join(tmpdir(), 'pf-bench-open-config-'));
  const trustedConfig = await mkdtemp(path.join(tmpdir(), 'pf-bench-open-trusted-'));
  const store = new TrustStore(trustedConfig);
  const workspace = await loadWorkspace(dir);
  await store.trust(workspace, (await store.workspaceTrust(workspace)).digest, 'cli --yes');
  const pool = new WorkerPool({ size: 1 });
  const make = (configDirectory: string) =>
    new StudioService({
      userDataDirectory: configDirectory,
      examplesDirectory: dir,
      secrets: noSecrets,
      emit: () => undefined,
      pool,
      configDirectory,
    });
  const times = { trusted: [] as number[], restricted: [] as number[] };
  try {
    for (let round = 0; round < 10; round += 1) {
      for (const which of ['restricted', 'trusted'] as const) {
        const studio = make(which === 'trusted' ? trustedConfig : config);
        const start = performance.now();
        const state = await studio.openWorkspace(dir);
        const elapsed = performance.now() - start;
        await studio.close();
        if (state.tools.length < 600) throw new Error('benchmark workspace did not open cleanly');
        if (round > 0) times[which].push(elapsed);
      }
    }
  } finally {
    await pool.close();
  }
  return times;
}

/** The digest of a 1,000-tool workspace, against loading that same workspace, in one run. */
export default async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-trust-'));
  try {
    await writeFile(path.join(dir, 'tools.yaml'), toolsYaml(1000));
    await mkdir(path.join(dir, 'tools'));
    for (let index = 0; index < 1000; index += 3)
      await writeFile(path.join(dir, 'tools', `t${index}.mjs`), `// tool ${index}\n${'x'.repeat(4096)}\n`);
    const workspace = await loadWorkspace(dir);
    if (workspace.problems.some((problem) => problem.severity === 'error'))
      throw new Error(`benchmark catalog did not load cleanly: ${workspace.problems[0]?.message}`);
    const digestSamples: number[] = [];
    const loadSamples: number[] = [];
    const judgeSamples: number[] = [];
    const store = new TrustStore(await mkdtemp(path.join(tmpdir(), 'pf-bench-trust-config-')));
    for (let round = 0; round < 9; round += 1) {
      let start = performance.now();
      await loadWorkspace(dir);
      loadSamples.push(performance.now() - start);
      start = performance.now();
      manifestDigest(workspaceManifest(workspace));
      digestSamples.push(performance.now() - start);
      start = performance.now();
      await store.workspaceTrust(workspace);
      judgeSamples.push(performance.now() - start);
    }
    const load = median(loadSamples);
    const opened = await openTimes(dir);
    const how =
      'A generated workspace of 1,000 tools: a third command tools each running a 4 KiB script file of its own (hashed into the digest), a third http tools with a secret header and `approval: auto`, a third MCP servers (npx with a pinned package and NODE_OPTIONS). Nine rounds; each round loads the workspace (the baseline), then builds its manifest and digest, then judges its trust against the trust file (read, parse, compare). Medians, same run.';
    return [
      {
        name: 'workspace manifest + digest, 1,000 tools',
        unit: 'ms',
        median: median(digestSamples),
        baseline: { name: 'loading that workspace', median: load },
        ratio: median(digestSamples) / load,
        target: '≤ 1×',
        samples: digestSamples.length,
        how,
      },
      {
        name: 'workspace trust check (manifest, digest, trust file), 1,000 tools',
        unit: 'ms',
        median: median(judgeSamples),
        baseline: { name: 'loading that workspace', median: load },
        ratio: median(judgeSamples) / load,
        target: '≤ 1.5×',
        samples: judgeSamples.length,
        how: "Same rounds: `TrustStore.workspaceTrust(workspace)`, what the CLI and the studio do on every open and run: the manifest and digest, the trust file read and parsed, the folder's real path compared.",
      },
      {
        name: 'studio: open the 1,000-tool workspace, trusted (workspace:open until it answers)',
        unit: 'ms',
        median: median(opened.trusted),
        baseline: { name: 'the same workspace, restricted (never trusted)', median: median(opened.restricted) },
        ratio: median(opened.trusted) / median(opened.restricted),
        target: '≤ 1.5×',
        samples: opened.trusted.length,
        how: 'StudioService.openWorkspace on the workspace above, alternating: once never trusted (restricted: the manifest is judged, no MCP manager is made), once trusted (judged, then an MCP manager for its 333 servers is made; none starts, as none starts before a run or the person asks). This is the main side of "open a folder"; the page paints when this answers. Nine of each, medians.',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
