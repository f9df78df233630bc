import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** A rectangle in screen pixels (device-independent). */
export interface ScreenRectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

const windowStateSchema = z.object({
  /** Absent until the window was placed once; then the OS picks a position. */
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(20_000),
  height: z.number().int().min(300).max(20_000),
  maximized: z.boolean(),
});

/** The window geometry remembered between launches (userData/window-state.json). */
export type WindowState = z.infer<typeof windowStateSchema>;

/** The geometry of a first launch. */
export const defaultWindowState: WindowState = { width: 1280, height: 800, maximized: false };

/** Parses the saved file's text; `null` when it is not valid JSON or not a window state. */
export function parseWindowState(text: string): WindowState | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = windowStateSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * Whether a window at `bounds` would show at least a 100x50 px grab area on one of the
 * displays' work areas. A window saved on an unplugged monitor would otherwise open off-screen.
 */
export function isVisibleOnSomeDisplay(bounds: ScreenRectangle, workAreas: readonly ScreenRectangle[]): boolean {
  return workAreas.some((area) => {
    const overlapWidth = Math.min(bounds.x + bounds.width, area.x + area.width) - Math.max(bounds.x, area.x);
    const overlapHeight = Math.min(bounds.y + bounds.height, area.y + area.height) - Math.max(bounds.y, area.y);
    return overlapWidth >= 100 && overlapHeight >= 50;
  });
}

/**
 * Loads the saved state. A missing, unreadable or invalid file gives the default state, and a
 * position that is on no display is dropped (the size is kept).
 */
export function loadWindowState(filePath: string, workAreas: readonly ScreenRectangle[]): WindowState {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch {
    return { ...defaultWindowState };
  }
  const state = parseWindowState(text);
  if (state === null) return { ...defaultWindowState };
  if (state.x === undefined || state.y === undefined) return state;
  const visible = isVisibleOnSomeDisplay(
    { x: state.x, y: state.y, width: state.width, height: state.height },
    workAreas,
  );
  return visible ? state : { width: state.width, height: state.height, maximized: state.maximized };
}

/**
 * Writes `contents` so that a crash leaves either the old file or the new one, never half of
 * one: write a temporary file next to the target, flush it, then rename it over the target.
 * Synchronous because the window state is saved while the window closes, when the app may quit
 * right after.
 */
export function writeFileAtomicallySync(filePath: string, contents: string): void {
  mkdirSync(path.dirname(filePath), { recursive: true });
  const temporaryPath = `${filePath}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const descriptor = openSync(temporaryPath, 'w', 0o600);
  try {
    writeSync(descriptor, contents);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    renameSync(temporaryPath, filePath);
  } catch (error) {
    rmSync(temporaryPath, { force: true });
    throw error;
  }
}

/** Saves the state atomically as pretty JSON. Invalid states are refused with an error. */
export function saveWindowState(filePath: string, state: WindowState): void {
  const checked = windowStateSchema.parse(state);
  writeFileAtomicallySync(filePath, `${JSON.stringify(checked, null, 2)}\n`);
}
