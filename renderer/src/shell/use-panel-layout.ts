import { useCallback, useEffect, useState } from 'react';

/** The side panels' sizes and whether each is collapsed, remembered across reloads. */
interface PanelLayout {
  explorerWidth: number;
  explorerCollapsed: boolean;
  /** null: the default share of the window (37 %, or 32 % beside the history and catalogs). */
  runPanelWidth: number | null;
  runPanelCollapsed: boolean;
}

/** Limits in CSS pixels. The center area keeps at least `centerMin`. */
const panelLimits = {
  explorer: { min: 160, max: 420, default: 220 },
  runPanel: { min: 300, max: 960 },
  centerMin: 360,
} as const;

const storageKey = 'promptforge.layout';

const defaults: PanelLayout = {
  explorerWidth: panelLimits.explorer.default,
  explorerCollapsed: false,
  runPanelWidth: null,
  runPanelCollapsed: false,
};

/** The saved layout, or the defaults; anything malformed in storage is ignored. */
function readSavedLayout(): PanelLayout {
  try {
    const saved: unknown = JSON.parse(window.localStorage.getItem(storageKey) ?? 'null');
    if (typeof saved !== 'object' || saved === null) return defaults;
    const value = saved as Record<string, unknown>;
    const number = (key: string): number | null =>
      typeof value[key] === 'number' && Number.isFinite(value[key]) ? (value[key] as number) : null;
    return {
      explorerWidth: number('explorerWidth') ?? defaults.explorerWidth,
      explorerCollapsed: value['explorerCollapsed'] === true,
      runPanelWidth: number('runPanelWidth'),
      runPanelCollapsed: value['runPanelCollapsed'] === true,
    };
  } catch {
    return defaults;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.round(Math.min(Math.max(value, min), Math.max(min, max)));
}

/** What {@link usePanelLayout} gives. */
export interface PanelLayoutControls {
  layout: PanelLayout;
  /** The explorer's width as shown, and the range it may take now. */
  explorer: { width: number; min: number; max: number };
  /** The run panel's width as shown, and the range it may take now. */
  runPanel: { width: number; min: number; max: number };
  setExplorerWidth: (width: number) => void;
  setRunPanelWidth: (width: number) => void;
  toggleExplorer: (collapsed?: boolean) => void;
  toggleRunPanel: (collapsed?: boolean) => void;
}

/**
 * The explorer's and run panel's widths and collapsed states. Widths are clamped so the center
 * area keeps room at any window size, and saved in localStorage on every change.
 */
export function usePanelLayout(narrowRunPanel: boolean): PanelLayoutControls {
  const [layout, setLayout] = useState<PanelLayout>(readSavedLayout);
  const [windowWidth, setWindowWidth] = useState(() => window.innerWidth);

  useEffect(() => {
    const onResize = (): void => setWindowWidth(window.innerWidth);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  useEffect(() => {
    try {
      window.localStorage.setItem(storageKey, JSON.stringify(layout));
    } catch {
      // Storage can be unavailable; the layout still applies for this session.
    }
  }, [layout]);

  const explorerShown = layout.explorerCollapsed ? 0 : layout.explorerWidth;
  const runMax = Math.min(panelLimits.runPanel.max, windowWidth - explorerShown - panelLimits.centerMin);
  // Under 1200 px the editor gets the room: the run panel starts at its smallest useful width.
  const runDefault = windowWidth * (narrowRunPanel ? 0.32 : windowWidth < 1200 ? 0.3 : 0.37);
  const runWidth = clamp(layout.runPanelWidth ?? runDefault, panelLimits.runPanel.min, runMax);
  const runShown = layout.runPanelCollapsed ? 0 : runWidth;
  const explorerMax = Math.min(panelLimits.explorer.max, windowWidth - runShown - panelLimits.centerMin);
  const explorerWidth = clamp(layout.explorerWidth, panelLimits.explorer.min, explorerMax);

  const setExplorerWidth = useCallback((width: number) => {
    setLayout((current) => ({ ...current, explorerWidth: Math.round(width), explorerCollapsed: false }));
  }, []);
  const setRunPanelWidth = useCallback((width: number) => {
    setLayout((current) => ({ ...current, runPanelWidth: Math.round(width), runPanelCollapsed: false }));
  }, []);
  const toggleExplorer = useCallback((collapsed?: boolean) => {
    setLayout((current) => ({ ...current, explorerCollapsed: collapsed ?? !current.explorerCollapsed }));
  }, []);
  const toggleRunPanel = useCallback((collapsed?: boolean) => {
    setLayout((current) => ({ ...current, runPanelCollapsed: collapsed ?? !current.runPanelCollapsed }));
  }, []);

  return {
    layout,
    explorer: {
      width: explorerWidth,
      min: panelLimits.explorer.min,
      max: Math.max(panelLimits.explorer.min, explorerMax),
    },
    runPanel: { width: runWidth, min: panelLimits.runPanel.min, max: Math.max(panelLimits.runPanel.min, runMax) },
    setExplorerWidth,
    setRunPanelWidth,
    toggleExplorer,
    toggleRunPanel,
  };
}
