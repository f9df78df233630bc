// A run's limits and caps (their defaults) and the clock that measures its Lua compute time against the CPU budget.
import type { RunLimits } from '../../../common/run-events.js';

/** Default limits (docs/host-api.md#limits-and-stopping): 30 s of Lua compute, a 256 MiB Lua heap, no wall-clock limit. */
export const DEFAULT_LIMITS: RunLimits = { cpuMs: 30_000, memoryBytes: 256 * 1024 * 1024 };

/**
 * Per-run bounds on what a run may make the host hold or write. Crossing one ends the run with
 * status `limit` and error kind `output` (`untrustedBytes` and `untrustedTexts` are catchable errors
 * instead). Event
 * volume is counted in characters of their JSON, the rest in bytes.
 */
export interface RunCaps {
  /** Log lines per run. */
  logLines: number;
  /** Log text per run in bytes (each line counted at its full length, before any cut). */
  logBytes: number;
  /** Longest log line (or error message) kept, in bytes; longer ones are cut with a note in the VM. */
  logLineBytes: number;
  /** Log lines the worker may have posted and the host not yet handled; past this `log` blocks. */
  logsInFlight: number;
  /** Largest text `untrusted()` accepts, in bytes. */
  untrustedBytes: number;
  /**
   * Texts `untrusted()` accepts per run. Each is remembered for the taint rule and makes no event,
   * so this, not the event cap, bounds what a loop of them makes the host hold.
   */
  untrustedTexts: number;
  /** All events of the run together, as JSON (what listeners such as the studio receive). */
  eventBytes: number;
  /** The transcript file, in bytes; the final `run-end` line is always written. */
  transcriptBytes: number;
}

const MiB = 1024 * 1024;

/** Default caps: far above what a real agent produces, far below what would hurt the host. */
export const DEFAULT_CAPS: RunCaps = {
  logLines: 50_000,
  logBytes: 64 * MiB,
  logLineBytes: 64 * 1024,
  logsInFlight: 64,
  untrustedBytes: 4 * MiB,
  untrustedTexts: 10_000,
  eventBytes: 256 * MiB,
  transcriptBytes: 256 * MiB,
};

/**
 * The run's Lua compute time: the time the worker spends outside host calls. One timer watches
 * the budget; `exceeded` is called once the script has computed past it.
 */
export class CpuClock {
  /** Compute time measured so far, in milliseconds (the time computing now not counted until paused). */
  usedMs = 0;
  private computingSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly budgetMs: number,
    private readonly exceeded: () => void,
  ) {}

  /** The script computes again (it started, or a host call was answered). */
  resume(): void {
    if (this.stopped || this.computingSince !== undefined) return;
    this.computingSince = performance.now();
    if (this.timer === undefined) this.check();
  }

  /** The script waits on the host (a host call) or ended: its time stops counting. */
  pause(): void {
    if (this.computingSince === undefined) return;
    this.usedMs += performance.now() - this.computingSince;
    this.computingSince = undefined;
  }

  /** The run ended: the clock stops for good. */
  stop(): void {
    this.pause();
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Pausing for a host call leaves the timer alone (no timer churn per call); when it fires it
   * re-measures, and re-arms for what is left while the script computes. Timers may also fire a
   * little early, which the re-measuring absorbs.
   */
  private check(): void {
    this.timer = undefined;
    if (this.stopped || this.computingSince === undefined) return;
    const remaining = this.budgetMs - (this.usedMs + performance.now() - this.computingSince);
    if (remaining <= 0) {
      this.exceeded();
      return;
    }
    this.timer = setTimeout(() => this.check(), Math.ceil(remaining));
  }
}
