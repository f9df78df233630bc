import { describe, expect, it } from 'vitest';
import { checkedOpener, ExternalUrlRefused, externalUrlVerdict } from '../../../main/core/studio/open-external.js';

/** What main may hand the person's system browser: the one decision, and the opener behind it. */
describe('open-external: what main opens in the person’s browser', () => {
  it('opens https anywhere and http on this machine only, as the parsed URL', () => {
    expect(externalUrlVerdict('https://example.com/consent?x=1')).toEqual({
      ok: true,
      href: 'https://example.com/consent?x=1',
    });
    expect(externalUrlVerdict('HTTPS://EXAMPLE.com')).toEqual({ ok: true, href: 'https://example.com/' });
    for (const loopback of ['http://127.0.0.1:8123/cb', 'http://localhost:3000/', 'http://[::1]:9/x', 'http://127.1/'])
      expect(externalUrlVerdict(loopback).ok, loopback).toBe(true);
    // What the browser gets is written out again by the parser: no second reading of odd text.
    expect(externalUrlVerdict('http://127.1/')).toEqual({ ok: true, href: 'http://127.0.0.1/' });
    // Backslashes read as slashes: it is https to that host, and the browser is given it spelled so.
    expect(externalUrlVerdict('https:\\\\evil.example')).toEqual({ ok: true, href: 'https://evil.example/' });
    expect(externalUrlVerdict('https://xn--e1afmkfd.xn--p1ai/')).toMatchObject({ ok: true });
  });

  it('refuses every other scheme, remote http, credentials, control and invisible characters, and non-text', () => {
    const refused = [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(document.cookie)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'javascript://%0aalert(1)',
      'file:///etc/passwd',
      'FILE:///C:/Windows/win.ini',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'blob:https://example.com/1',
      'about:blank',
      'chrome://settings',
      'ms-settings:privacy',
      'smb://server/share',
      'ftp://example.com/',
      'http://example.com/login',
      'http://127.0.0.1.evil.example/',
      'http://localhost.evil.example/',
      'http://0.0.0.0/',
      'https://user:pass@example.com/',
      'https://user@example.com/',
      'https://example.com/\u202egnp.exe',
      'https://exa\u200bmple.com/',
      'https://example.com/\u0000',
      'https://example.com/a b',
      'https://example.com/\n',
      '//evil.example/',
      'evil.example',
      '',
      `https://example.com/${'a'.repeat(5000)}`,
    ];
    for (const url of refused) {
      const verdict = externalUrlVerdict(url);
      expect(verdict.ok, JSON.stringify(url)).toBe(false);
      if (!verdict.ok) expect(verdict.problem).toMatch(/^the URL/);
    }
    for (const value of [undefined, null, 42, { href: 'https://example.com' }, ['https://example.com']])
      expect(externalUrlVerdict(value)).toEqual({ ok: false, problem: 'the URL is not text' });
  });

  it('hands the browser only what the decision allows; a refused URL never reaches it', async () => {
    const opened: string[] = [];
    const open = checkedOpener(async (href) => {
      opened.push(href);
    });
    await open('https://example.com/a');
    await expect(open('javascript:alert(1)')).rejects.toThrow(ExternalUrlRefused);
    await expect(open('file:///etc/passwd')).rejects.toThrow(
      /the studio does not open this URL: the URL's scheme "file:"/,
    );
    await expect(open('data:text/html,x')).rejects.toThrow(ExternalUrlRefused);
    await expect(open('http://example.com/')).rejects.toThrow(/plain http to another machine/);
    expect(opened).toEqual(['https://example.com/a']);
  });
});
