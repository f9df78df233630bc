import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildContentSecurityPolicy, contentSecurityPolicy } from '../../../common/content-security-policy.js';

describe('content security policy (docs/architecture.md#security-baseline-as-implemented)', () => {
  it('allows scripts from the app only: no eval, no inline script, no remote origin', () => {
    expect(contentSecurityPolicy).toContain("default-src 'self'");
    expect(contentSecurityPolicy).toContain("script-src 'self';");
    expect(contentSecurityPolicy).toContain("object-src 'none'");
    expect(contentSecurityPolicy).not.toMatch(/unsafe-(eval|inline)|https?:|\*/);
  });

  it('adds dev-server allowances only when asked', () => {
    const development = buildContentSecurityPolicy({ inlineScriptHashes: ["'sha256-abc'"], allowInlineStyles: true });
    expect(development).toContain("script-src 'self' 'sha256-abc';");
    expect(development).toContain("style-src 'self' 'unsafe-inline';");
    expect(development).not.toContain('unsafe-eval');
  });

  it('is what renderer/index.html gets at build time (via the placeholder)', () => {
    const html = readFileSync(new URL('../../../renderer/index.html', import.meta.url), 'utf8');
    expect(html).toContain(
      '<meta http-equiv="Content-Security-Policy" content="__PROMPTFORGE_CONTENT_SECURITY_POLICY__" />',
    );
  });
});
