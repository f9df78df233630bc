import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultWindowState,
  isVisibleOnSomeDisplay,
  loadWindowState,
  parseWindowState,
  saveWindowState,
  writeFileAtomicallySync,
} from '../../../main/core/studio/window-state-store.js';

const oneDisplay = [{ x: 0, y: 0, width: 1920, height: 1080 }];
let directory: string;
let statePath: string;

beforeEach(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'promptforge-window-state-'));
  statePath = path.join(directory, 'window-state.json');
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('window state (userData/window-state.json)', () => {
  it('gives the default state when no file exists', () => {
    expect(loadWindowState(statePath, oneDisplay)).toEqual(defaultWindowState);
  });

  it('round-trips saved bounds and leaves no temporary file behind', () => {
    saveWindowState(statePath, { x: 100, y: 80, width: 1400, height: 900, maximized: true });
    expect(loadWindowState(statePath, oneDisplay)).toEqual({
      x: 100,
      y: 80,
      width: 1400,
      height: 900,
      maximized: true,
    });
    expect(readdirSync(directory)).toEqual(['window-state.json']);
  });

  it('ignores a corrupt or out-of-range file', () => {
    writeFileSync(statePath, '{"width": 1400, "hei');
    expect(loadWindowState(statePath, oneDisplay)).toEqual(defaultWindowState);
    expect(parseWindowState('{"width": 10, "height": 10, "maximized": false}')).toBeNull();
    expect(parseWindowState('[]')).toBeNull();
  });

  it('drops a position that is on no display but keeps the size', () => {
    saveWindowState(statePath, { x: 5000, y: 3000, width: 1000, height: 700, maximized: false });
    expect(loadWindowState(statePath, oneDisplay)).toEqual({ width: 1000, height: 700, maximized: false });
  });

  it('counts a window as visible only with a real grab area on a display', () => {
    expect(isVisibleOnSomeDisplay({ x: 1870, y: 0, width: 800, height: 600 }, oneDisplay)).toBe(false);
    expect(isVisibleOnSomeDisplay({ x: 1800, y: 0, width: 800, height: 600 }, oneDisplay)).toBe(true);
    expect(
      isVisibleOnSomeDisplay({ x: 2000, y: 100, width: 800, height: 600 }, [
        ...oneDisplay,
        { x: 1920, y: 0, width: 1280, height: 1024 },
      ]),
    ).toBe(true);
  });

  it('refuses to save an invalid state and keeps the previous file', () => {
    saveWindowState(statePath, { width: 1200, height: 800, maximized: false });
    expect(() => saveWindowState(statePath, { width: -1, height: 800, maximized: false })).toThrow();
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({ width: 1200, height: 800, maximized: false });
  });

  it('replaces a file atomically and creates missing folders', () => {
    const nested = path.join(directory, 'a', 'b', 'file.txt');
    writeFileAtomicallySync(nested, 'first');
    writeFileAtomicallySync(nested, 'second');
    expect(readFileSync(nested, 'utf8')).toBe('second');
    expect(readdirSync(path.dirname(nested))).toEqual(['file.txt']);
  });
});
