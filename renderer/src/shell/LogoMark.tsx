/** The PromptForge mark (same drawing as build/icon.svg), decorative. */
export function LogoMark({ size }: { size: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id="logo-mark-fill" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#ff9a3d" />
          <stop offset="1" stopColor="#e8482c" />
        </linearGradient>
      </defs>
      <rect x="2" y="2" width="60" height="60" rx="14" fill="url(#logo-mark-fill)" />
      <path
        d="M24 18 L14 32 L24 46 M40 18 L50 32 L40 46"
        fill="none"
        stroke="#1b1206"
        strokeWidth="5"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <path d="M34 17 L27 34 H33 L30 47 L38 29 H32 Z" fill="#fff6e8" />
    </svg>
  );
}
