/**
 * A vitest setup file that only `npm run screenshots` loads (scripts/screenshots.ts); `npm test`
 * does not. The core runs in the test process and stamps runs and their events with `new Date()`,
 * and the studio shows those times (run header, explorer, history). Freezing Node's `Date` at one
 * instant makes the README's pictures show the same date and time on every run.
 *
 * Only `Date` is faked: timers, `performance.now()` and the browser's own clock run as usual, so
 * the tests wait exactly as they do under `npm test`.
 */
import { vi } from 'vitest';

/** The instant every run in the README's pictures starts (and ends). */
export const SCREENSHOT_TIME = new Date('2026-06-01T09:30:00.000Z');

vi.useFakeTimers({ toFake: ['Date'], now: SCREENSHOT_TIME });
