// Benchmark of the studio UI: paged transcripts (10,000 and 1,000,000 events) and a deep comparison.
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTranscriptIndexes } from '../main/core/transcript/transcript-pages.js';
import { FIRST_PAGE_EVENTS } from '../renderer/src/run/run-store.js';
import { syntheticEvent } from '../test/node/transcript/synthetic-run.js';
import { type BenchRow, interleaveMany, median, row, sleep } from './bench-kit.js';
import {
  OPEN_SAMPLES,
  OPEN_WARMUP,
  LONG_RUN,
  LONG_ITEMS,
  buildTranscript,
  newStudio,
  openStudio,
  pageErrorNotes,
} from './studio-ui-kit.js';

/**
 * The studio UI, paged history: the BUILT renderer (out/renderer) in headless Debian Chromium,
 * driven through the e2e bridge (test/e2e/bridge.ts) against the real core; opening runs of 10,000
 * and 1,000,000 events (first rows, the core's memory) and comparing two runs of 100,000 events.
 */

const TEN_K_RUN = 'run-bench-ui-10k-events';
const MILLION_RUN = 'run-bench-ui-1m-events';
const MILLION_LOGS = 999_998;
const COMPARE_LEFT = 'run-bench-ui-compare-a';
const COMPARE_RIGHT = 'run-bench-ui-compare-b';

/** Writes a synthetic run (a run-start, `logs` logs, a run-end) in chunks; log `differAt` reads differently. */
async function writeJsonl(file: string, runId: string, logs: number, differAt?: number): Promise<void> {
  await writeFile(file, '');
  const text = (n: number): string => (n === differAt ? `changed ${n}` : `line ${n}`);
  for (let seq = 1; seq <= logs + 2;) {
    const lines: string[] = [];
    for (const end = Math.min(logs + 2, seq + 49_999); seq <= end; seq += 1)
      lines.push(`${JSON.stringify(syntheticEvent(runId, seq, logs, text))}\n`);
    await appendFile(file, lines.join(''));
  }
}

/** This process's resident memory (the core's side of the studio runs here). */
const coreMemory = (): number => process.memoryUsage().rss;

/** Resolves `window.__pfFirstRows` with click → end of the first frame that shows conversation rows. */
const firstRowsProbe = `(() => {
  window.__pfFirstRows = new Promise((resolve, reject) => {
    let t0 = -1;
    window.addEventListener('click', () => { if (t0 < 0) t0 = performance.now(); }, { capture: true, once: true });
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const now = performance.now();
      const rows = document.querySelectorAll('[role="log"][aria-label="Conversation"] .virtual-row').length;
      if (t0 >= 0 && rows > 0) return resolve(now - t0);
      if (t0 >= 0 && now - t0 > 30000) return reject(new Error('first-rows probe: no rows after 30 s'));
      requestAnimationFrame(frame);
    };
    const frame = () => channel.port2.postMessage(0);
    requestAnimationFrame(frame);
  });
})()`;

let lastNotes: string[] = [];

export default async function run(): Promise<BenchRow[]> {
  lastNotes = [];
  const harness = newStudio();
  const rows: BenchRow[] = [];
  try {
    const { page, root } = await openStudio(harness);

    // Paged transcripts: a 10,000-event run (the realistic agent's), a 1,000,000-event run, a deep comparison.
    const long = buildTranscript(LONG_RUN, LONG_ITEMS);
    const runsDir = path.join(root, 'runs');
    await mkdir(runsDir, { recursive: true });
    const tenKEvents = long.events.slice(0, 9_999).map((event) => ({ ...event, runId: TEN_K_RUN }));
    if (tenKEvents.length < 9_999) throw new Error('the generated long run has fewer than 10,000 events');
    tenKEvents.push({ ...long.events.at(-1)!, seq: 10_000, runId: TEN_K_RUN });
    await writeFile(path.join(runsDir, `${TEN_K_RUN}.jsonl`), tenKEvents.map((e) => `${JSON.stringify(e)}\n`).join(''));
    await writeJsonl(path.join(runsDir, `${MILLION_RUN}.jsonl`), MILLION_RUN, MILLION_LOGS);
    const millionBytes = (await readFile(path.join(runsDir, `${MILLION_RUN}.jsonl`))).byteLength;
    const firstRowsOnce = async (runId: string): Promise<{ firstRows: number; coreMiB: number; pageMiB: number }> => {
      await page.reload();
      await harness.waitForAppShell();
      await page.locator('.agent-editor .cm-content').waitFor();
      const button = harness.runButton(runId);
      await button.waitFor({ timeout: 120_000 });
      await sleep(300);
      clearTranscriptIndexes(); // a cold open: the core indexes the file again
      const before = coreMemory();
      const pageBefore = (await page.evaluate('performance.memory.usedJSHeapSize')) as number;
      await page.evaluate(firstRowsProbe);
      await button.click();
      const firstRows = (await page.evaluate('window.__pfFirstRows')) as number;
      const coreMiB = (coreMemory() - before) / 1024 / 1024;
      const pageMiB = ((await page.evaluate('performance.memory.usedJSHeapSize')) as number) - pageBefore;
      // Let the reading of further pages finish (the run's end, or the button past the automatic
      // cap) before the next sample, so it does not share the bridge with this one's tail.
      await page
        .locator('[role="log"] .run-end, [role="log"] .paging-note button')
        .first()
        .waitFor({ timeout: 120_000 });
      return { firstRows, coreMiB, pageMiB: pageMiB / 1024 / 1024 };
    };
    const tenK: Array<{ firstRows: number }> = [];
    const million: Array<{ firstRows: number; coreMiB: number; pageMiB: number }> = [];
    await interleaveMany(
      [
        async () => {
          const result = await firstRowsOnce(TEN_K_RUN);
          tenK.push(result);
          return result.firstRows;
        },
        async () => {
          const result = await firstRowsOnce(MILLION_RUN);
          million.push(result);
          return result.firstRows;
        },
      ],
      { warmup: OPEN_WARMUP, samples: OPEN_SAMPLES },
    );
    const measuredTenK = tenK.slice(-OPEN_SAMPLES);
    const measuredMillion = million.slice(-OPEN_SAMPLES);
    const firstRowsHow = (events: string, bytes: number): string =>
      `Each sample reloads the page, clears the core's transcript index cache (so the core streams the file once to index it, as a first open does) and clicks "Open run …" in the explorer: \`history:page\` for the first ${FIRST_PAGE_EVENTS} events through window.promptforge and the e2e bridge (the real contract transport of this harness: Playwright exposeBinding), ConversationBuilder.apply, React render. t0 is the click in the page, t1 the end of the first animation frame with conversation rows. The run: ${events} (${(bytes / 1024 / 1024).toFixed(1)} MiB of JSONL). Interleaved, ${OPEN_WARMUP} warm-up pair. The machine's 2 cores are shared with other work while this runs.`;
    rows.push(
      row(
        'Open a 10,000-event run: click → first rows painted (paged, through the bridge)',
        'ms',
        measuredTenK.map((r) => r.firstRows),
        {
          target: '≤ 150 ms',
          how: firstRowsHow(
            `10,000 events of the realistic agent (its 10,000-item run, see studio-open.bench.ts)`,
            Buffer.byteLength(tenKEvents.map((e) => `${JSON.stringify(e)}\n`).join('')),
          ),
        },
      ),
      row(
        'Open a 1,000,000-event run: click → first rows painted (paged, through the bridge)',
        'ms',
        measuredMillion.map((r) => r.firstRows),
        {
          target: '≤ 300 ms',
          how: firstRowsHow(
            `1,000,000 events: a run-start, ${MILLION_LOGS.toLocaleString('en')} logs, a run-end`,
            millionBytes,
          ),
        },
      ),
      row(
        'Open a 1,000,000-event run: memory added in the core (RSS) by the open',
        'MiB',
        measuredMillion.map((r) => r.coreMiB),
        {
          target: '≤ 100 MiB',
          how: `Same samples. The core runs in this process (the bench is the studio's main side): \`process.memoryUsage().rss\` just before the click and right after the first rows were painted; the line index is one float64 per line (${((8 * 1_000_002) / 1024 / 1024).toFixed(1)} MiB for this run, plus growth slack) and a page is read by byte range. The page's JS heap grew by a median ${median(measuredMillion.map((r) => r.pageMiB)).toFixed(1)} MiB over the same span (\`performance.memory.usedJSHeapSize\`, GC-dependent).`,
        },
      ),
    );
    // Compare two 100,000-event runs that differ at event 99,000, through the contract from the page.
    await writeJsonl(path.join(runsDir, `${COMPARE_LEFT}.jsonl`), COMPARE_LEFT, 99_998);
    await writeJsonl(path.join(runsDir, `${COMPARE_RIGHT}.jsonl`), COMPARE_RIGHT, 99_998, 98_999);
    const compareTimes: number[] = [];
    const coreCompare: number[] = [];
    let firstDifference: number | null = null;
    for (let index = 0; index < OPEN_WARMUP + OPEN_SAMPLES; index += 1) {
      clearTranscriptIndexes();
      const result = (await page.evaluate(`(async () => {
        const t = performance.now();
        const result = await window.promptforge['history:compare']({ left: ${JSON.stringify(COMPARE_LEFT)}, right: ${JSON.stringify(COMPARE_RIGHT)} });
        return { ms: performance.now() - t, first: result.ok ? result.value.firstDifference : null };
      })()`)) as { ms: number; first: number | null };
      clearTranscriptIndexes();
      const t = performance.now();
      harness.service.compare(COMPARE_LEFT, COMPARE_RIGHT);
      const core = performance.now() - t;
      if (index >= OPEN_WARMUP) {
        compareTimes.push(result.ms);
        coreCompare.push(core);
      }
      firstDifference = result.first;
    }
    rows.push(
      row(
        'Compare two 100,000-event runs that differ at event 99,000 (history:compare from the page)',
        'ms',
        compareTimes,
        {
          target: '≤ 1000 ms',
          how: `Two transcripts of a run-start, 99,998 logs and a run-end; the right one's log at event 99,000 differs. Page script calls \`window.promptforge['history:compare']\` (no window: the rows around the first difference) through the e2e bridge, timed in the page; the core's index cache is cleared first, so both files are indexed and streamed from the start, page by page (a pair of lines identical apart from the run's seq/time/id is taken as equal without parsing; any other pair is parsed and compared as rows with nonces blanked), stopping 50 rows past the difference. The core's share alone, timed in this process: median ${median(coreCompare).toFixed(0)} ms. First difference reported at row ${firstDifference ?? 'none'}. ${OPEN_WARMUP} warm-up, ${OPEN_SAMPLES} samples; the 2 cores are shared.`,
        },
      ),
    );
    lastNotes.push(...pageErrorNotes(harness));
  } finally {
    await harness.close();
  }
  return rows;
}

export function notes(): string {
  return lastNotes.join('\n\n');
}
