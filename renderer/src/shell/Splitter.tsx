import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

const step = 16;
const bigStep = 64;

/**
 * A vertical splitter between two areas (the WAI-ARIA window splitter pattern): a focusable
 * `role="separator"` whose value is the side panel's width in pixels.
 *
 * - Drag it with the pointer (or double-click to collapse / restore the panel).
 * - ← / → move it by 16 px (with Shift, 64 px), Home / End to the smallest / largest width,
 *   Enter collapses the panel or restores it.
 *
 * `side` is where the panel is: for a panel on the right, moving the splitter left widens it.
 */
export function Splitter({
  label,
  controls,
  side,
  value,
  min,
  max,
  collapsed,
  onResize,
  onToggle,
}: {
  label: string;
  /** The id of the panel it resizes. */
  controls: string;
  side: 'left' | 'right';
  value: number;
  min: number;
  max: number;
  collapsed: boolean;
  onResize: (width: number) => void;
  onToggle: () => void;
}) {
  const drag = useRef<{ startX: number; startWidth: number } | null>(null);
  const clamp = (width: number): number => Math.min(Math.max(width, min), max);
  const grow = side === 'left' ? 1 : -1;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const amount = event.shiftKey ? bigStep : step;
    const current = collapsed ? min : value;
    if (event.key === 'ArrowLeft') onResize(clamp(current - grow * amount));
    else if (event.key === 'ArrowRight') onResize(clamp(current + grow * amount));
    else if (event.key === 'Home') onResize(min);
    else if (event.key === 'End') onResize(max);
    else if (event.key === 'Enter') onToggle();
    else return;
    event.preventDefault();
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    if (event.button !== 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { startX: event.clientX, startWidth: collapsed ? min : value };
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>): void => {
    if (!drag.current) return;
    onResize(clamp(drag.current.startWidth + grow * (event.clientX - drag.current.startX)));
  };
  const endDrag = (): void => {
    drag.current = null;
  };

  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-controls={controls}
      aria-valuenow={collapsed ? 0 : value}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuetext={collapsed ? 'collapsed' : `${value} pixels`}
      tabIndex={0}
      className={`splitter${collapsed ? ' splitter-collapsed' : ''}`}
      title={`${label}: drag, or use ← → (Enter ${collapsed ? 'restores' : 'collapses'} it)`}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={endDrag}
      onPointerCancel={endDrag}
      onDoubleClick={onToggle}
    />
  );
}
