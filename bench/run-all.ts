import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchRow, fmt } from './bench-kit.js';
import { errorMessage } from '../common/error-message.js';

/**
 * Runs every bench/*.bench.ts (default export: `async () => BenchRow[]`) one after another, prints
 * a table per file and writes docs/BENCHMARKS.md. A bench file that throws is recorded and the
 * others still run. Usage: `npm run bench` (builds first: the run engine is measured with the
 * bundled worker, out/main/lua-worker.js).
 *
 * A subset: `npm run build && npm run build:cli && npx tsx bench/run-all.ts cli catalog` runs the
 * bench files whose names start with those words and replaces only their sections of
 * docs/BENCHMARKS.md; every other section (other bench files, and hand-kept ones such as the
 * whole-suite `npm test` time) is kept as it was.
 */

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, '..');
const workerFile = path.join(root, 'out/main/lua-worker.js');
const docFile = path.join(root, 'docs/BENCHMARKS.md');

interface BenchModule {
  default: () => Promise<BenchRow[]>;
  /** Optional: markdown appended under the file's table, given its rows (e.g. a profile breakdown). */
  notes?: (rows: BenchRow[]) => string;
}

interface FileResult {
  file: string;
  rows: BenchRow[];
  notes?: string;
  error?: string;
  seconds: number;
}

/** Whether a row meets its target: `≤ 5 ms` checks the median, `≤ 1.5×` the ratio. */
export function targetMet(row: BenchRow): boolean | undefined {
  if (!row.target) return undefined;
  const match = /^\s*(≤|<=|<|≥|>=|>)\s*([\d.]+)\s*(×|x)?/.exec(row.target);
  if (!match) return undefined;
  const [, op, limitText, times] = match;
  const value = times ? row.ratio : row.median;
  if (value === undefined || Number.isNaN(value)) return undefined;
  const limit = Number(limitText);
  switch (op) {
    case '≤':
    case '<=':
      return value <= limit;
    case '<':
      return value < limit;
    case '≥':
    case '>=':
      return value >= limit;
    default:
      return value > limit;
  }
}

const metText = (row: BenchRow): string => {
  const met = targetMet(row);
  return met === undefined ? (row.target ? '?' : '–') : met ? 'yes' : '**no**';
};

const ratioText = (row: BenchRow): string => (row.ratio === undefined ? '–' : `${row.ratio.toFixed(2)}×`);

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function markdownTable(rows: BenchRow[]): string {
  const lines = [
    '| Measure | Median | Unit | Baseline | Baseline median | Ratio | Target | Met? | Samples |',
    '| --- | ---: | --- | --- | ---: | ---: | --- | --- | ---: |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${cell(row.name)} | ${fmt(row.median)} | ${row.unit === 'us' ? 'µs' : row.unit} | ${cell(row.baseline?.name ?? '–')} | ${fmt(row.baseline?.median)} | ${ratioText(row)} | ${cell(row.target ?? '–')} | ${metText(row)} | ${row.samples} |`,
    );
  }
  return lines.join('\n');
}

function printTable(result: FileResult): void {
  console.log(`\n== ${result.file} (${result.seconds.toFixed(1)} s)`);
  if (result.error) console.log(`   ERROR: ${result.error}`);
  const data = result.rows.map((row) => ({
    measure: row.name.length > 70 ? `${row.name.slice(0, 69)}…` : row.name,
    median: `${fmt(row.median)} ${row.unit}`,
    baseline: row.baseline ? `${fmt(row.baseline.median)} ${row.unit}` : '–',
    ratio: ratioText(row),
    target: row.target ?? '–',
    met: metText(row).replace(/\*/g, ''),
    n: row.samples,
  }));
  if (data.length > 0) console.table(data);
}

function machine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
  return `${model}, ${cpus.length} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, ${os.platform()} ${os.release()} (${os.arch()}), Node ${process.version}; load average at start: ${load}`;
}

/** The current docs/BENCHMARKS.md: the text before its first `## `, and its `## heading` sections. */
function existingDoc(): { header: string | undefined; sections: { heading: string; text: string }[] } {
  if (!existsSync(docFile)) return { header: undefined, sections: [] };
  const [header, ...sections] = readFileSync(docFile, 'utf8').split(/^(?=## )/m);
  return {
    header: header?.trimEnd(),
    sections: sections.map((section) => ({
      heading: section.slice(3, section.indexOf('\n')).trim(),
      text: section.trimEnd(),
    })),
  };
}

function writeDoc(results: FileResult[], started: Date, seconds: number, machineText: string, subset: boolean): void {
  const existing = existingDoc();
  const kept = existing.sections.filter((section) => !results.some((result) => result.file === section.heading));
  const generated: string[] = [
    '# Benchmarks',
    '',
    '<!-- Generated by bench/run-all.ts: edit the benchmarks, not this file. -->',
    '',
    `- **Date:** ${started.toISOString()}`,
    `- **Machine:** ${machineText}`,
    `- **Reproduce:** \`npm run bench\` (runs \`electron-vite build\`, then \`tsx bench/run-all.ts\`; the run engine is measured with the built worker \`out/main/lua-worker.js\`)`,
    `- **Total time:** ${seconds.toFixed(0)} s`,
    '',
    'Medians of repeated samples. Each baseline is measured in the same run, interleaved with its measure (AB, BA, …), so the **ratio** is the number to compare across machines; absolute times vary with the machine and its load (the benchmark machine may be shared). "Met?" checks `≤ N unit` targets against the median and `≤ N×` targets against the ratio.',
  ];
  // A subset run keeps the header of the full run; each section it rewrites says when and where.
  const parts = subset && existing.header ? [existing.header] : generated;
  for (const result of results) {
    parts.push('', `## ${result.file}`, '');
    if (subset)
      parts.push(
        `_Measured on its own (\`tsx bench/run-all.ts\` with a subset): ${started.toISOString()}, ${machineText}; ${seconds.toFixed(0)} s._`,
        '',
      );
    if (result.error) parts.push(`**Error:** the benchmark threw: \`${cell(result.error)}\``, '');
    if (result.rows.length > 0) {
      parts.push(markdownTable(result.rows), '', '### How measured', '');
      for (const row of result.rows) {
        parts.push(`- **${row.name}.** ${row.how ?? '(not described by the bench file)'}`);
      }
    }
    if (result.notes) parts.push('', result.notes.trim());
  }
  // Sections this run did not produce stay, in their earlier order, after the ones it did.
  for (const section of kept) parts.push('', section.text);
  writeFileSync(docFile, `${parts.join('\n')}\n`);
}

async function main(): Promise<void> {
  if (!existsSync(workerFile)) {
    console.error(
      `${path.relative(root, workerFile)} is missing: build first (npm run build, or npm run bench which builds).`,
    );
    process.exit(1);
  }
  const started = new Date();
  const machineText = machine();
  const t0 = performance.now();
  const wanted = process.argv.slice(2);
  const files = readdirSync(benchDir)
    .filter((name) => name.endsWith('.bench.ts'))
    .filter((name) => wanted.length === 0 || wanted.some((word) => name.startsWith(word)))
    .sort();
  if (files.length === 0) {
    console.error(`no bench file starts with ${wanted.join(' or ')} (bench/*.bench.ts)`);
    process.exit(2);
  }
  console.log(`Benchmarks: ${files.join(', ')}\n${machineText}`);
  const results: FileResult[] = [];
  for (const file of files) {
    const fileStart = performance.now();
    const result: FileResult = { file, rows: [], seconds: 0 };
    try {
      const module = (await import(pathToFileURL(path.join(benchDir, file)).href)) as BenchModule;
      if (typeof module.default !== 'function') throw new Error('no default export function');
      result.rows = await module.default();
      if (module.notes) {
        try {
          result.notes = module.notes(result.rows);
        } catch (error) {
          result.notes = `(notes failed: ${errorMessage(error)})`;
        }
      }
    } catch (error) {
      result.error =
        error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 3).join(' ') : String(error);
    }
    result.seconds = (performance.now() - fileStart) / 1000;
    results.push(result);
    printTable(result);
  }
  const seconds = (performance.now() - t0) / 1000;
  writeDoc(results, started, seconds, machineText, wanted.length > 0);
  console.log(`\nWrote ${path.relative(root, docFile)} (${seconds.toFixed(0)} s).`);
  // Pools and servers are unref'd or closed, but a stray handle must not keep the command alive.
  process.exit(results.some((result) => result.error) ? 1 : 0);
}

await main();
