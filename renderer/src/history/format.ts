/** How the history feature writes durations, times and costs. */

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, {
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
}

/** A cost in the model's price currency; `—` when the catalog has no prices. */
export function formatCost(cost: number | undefined): string {
  if (cost === undefined) return '—';
  return cost === 0 ? '0' : cost < 0.01 ? cost.toFixed(6) : cost.toFixed(4);
}
