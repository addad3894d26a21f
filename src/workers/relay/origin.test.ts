import { describe, expect, it } from 'vitest';
import { isLoopbackHost, judgeRequest, servedNames, type ServedNamesInput } from './origin.js';

const LOCAL: ServedNamesInput = { port: 7300, bindHost: '127.0.0.1', tls: false };
const LAN_TLS: ServedNamesInput = { port: 7300, bindHost: '0.0.0.0', tls: true, publicUrl: 'https://forge.example.lan:7300', interfaceAddresses: ['127.0.0.1', '192.168.1.20', 'fe80::1'] };
const PROXIED: ServedNamesInput = { port: 7300, bindHost: '127.0.0.1', tls: false, publicUrl: 'https://forge.example.com' };
const CONCRETE: ServedNamesInput = { port: 7300, bindHost: '10.0.0.5', tls: true };

describe('a request is answered only under a name forge serves, and a page elsewhere cannot open its socket or MCP', () => {
  const cases: Array<[string, ServedNamesInput, { host: string; origin: string; checkOrigin: boolean }, 'ok' | '421' | '403']> = [
    ['loopback by address', LOCAL, { host: '127.0.0.1:7300', origin: '', checkOrigin: false }, 'ok'],
    ['loopback by name', LOCAL, { host: 'localhost:7300', origin: '', checkOrigin: false }, 'ok'],
    ['loopback by IPv6', LOCAL, { host: '[::1]:7300', origin: '', checkOrigin: false }, 'ok'],
    ['a name in capitals', LOCAL, { host: 'LocalHost:7300', origin: '', checkOrigin: false }, 'ok'],
    ['a rebound name on loopback', LOCAL, { host: 'evil.example:7300', origin: '', checkOrigin: false }, '421'],
    ['a rebound name without a port', LOCAL, { host: 'evil.example', origin: '', checkOrigin: false }, '421'],
    ['loopback through a forwarded port (ssh -L)', LOCAL, { host: 'localhost:9000', origin: '', checkOrigin: false }, 'ok'],
    ['loopback with no port', LOCAL, { host: 'localhost', origin: '', checkOrigin: false }, 'ok'],
    ['a rebound name on forge\'s port', LOCAL, { host: 'evil.example:7300', origin: 'http://evil.example:7300', checkOrigin: true }, '421'],
    ['the socket from forge\'s page through a forwarded port', LOCAL, { host: 'localhost:9000', origin: 'http://localhost:9000', checkOrigin: true }, 'ok'],
    ['the socket from another local service\'s page', LOCAL, { host: '127.0.0.1:7300', origin: 'http://127.0.0.1:8080', checkOrigin: true }, '403'],
    ['a loopback name that is a prefix of a rebound one', LOCAL, { host: 'localhost.evil.example:7300', origin: '', checkOrigin: false }, '421'],
    ['no Host at all', LOCAL, { host: '', origin: '', checkOrigin: false }, '421'],
    ['the socket from forge\'s own page', LOCAL, { host: '127.0.0.1:7300', origin: 'http://127.0.0.1:7300', checkOrigin: true }, 'ok'],
    ['the socket from a page elsewhere', LOCAL, { host: '127.0.0.1:7300', origin: 'https://evil.example', checkOrigin: true }, '403'],
    ['the socket from an opaque origin', LOCAL, { host: '127.0.0.1:7300', origin: 'null', checkOrigin: true }, '403'],
    ['the socket with no Origin (a program)', LOCAL, { host: '127.0.0.1:7300', origin: '', checkOrigin: true }, 'ok'],
    ['an Origin on a route that does not check it', LOCAL, { host: '127.0.0.1:7300', origin: 'https://evil.example', checkOrigin: false }, 'ok'],
    ['own scheme only: an https page for a plain server', LOCAL, { host: '127.0.0.1:7300', origin: 'https://127.0.0.1:7300', checkOrigin: true }, '403'],
    ['the public name with its port', LAN_TLS, { host: 'forge.example.lan:7300', origin: 'https://forge.example.lan:7300', checkOrigin: true }, 'ok'],
    ['a LAN address of a wildcard bind', LAN_TLS, { host: '192.168.1.20:7300', origin: 'https://192.168.1.20:7300', checkOrigin: true }, 'ok'],
    ['an IPv6 interface address, bracketed', LAN_TLS, { host: '[fe80::1]:7300', origin: '', checkOrigin: false }, 'ok'],
    ['a wildcard bind is no name', LAN_TLS, { host: '0.0.0.0:7300', origin: '', checkOrigin: false }, '421'],
    ['an address not the machine\'s', LAN_TLS, { host: '192.168.1.99:7300', origin: '', checkOrigin: false }, '421'],
    ['the TLS server\'s loopback origin is https', LAN_TLS, { host: '127.0.0.1:7300', origin: 'http://127.0.0.1:7300', checkOrigin: true }, '403'],
    ['the proxy\'s name, no port', PROXIED, { host: 'forge.example.com', origin: 'https://forge.example.com', checkOrigin: true }, 'ok'],
    ['the proxy\'s name with its default port', PROXIED, { host: 'forge.example.com:443', origin: '', checkOrigin: false }, 'ok'],
    ['the proxy\'s name over plain http', PROXIED, { host: 'forge.example.com', origin: 'http://forge.example.com', checkOrigin: true }, '403'],
    ['the proxy forwarding loopback as Host', PROXIED, { host: '127.0.0.1:7300', origin: 'https://forge.example.com', checkOrigin: true }, 'ok'],
    ['a concrete bind address', CONCRETE, { host: '10.0.0.5:7300', origin: 'https://10.0.0.5:7300', checkOrigin: true }, 'ok'],
    ['a concrete bind does not serve its neighbours', CONCRETE, { host: '10.0.0.6:7300', origin: '', checkOrigin: false }, '421'],
  ];
  for (const [name, input, req, want] of cases) {
    it(`${name}: ${want}`, () => {
      const v = judgeRequest(servedNames(input), req);
      expect(v.ok ? 'ok' : v.status.slice(0, 3)).toBe(want);
      if (!v.ok) expect(v.words).toMatch(/^(this forge does not serve|a page at)/);
    });
  }

  it('a refusal does not mirror a long header back', () => {
    const v = judgeRequest(servedNames(LOCAL), { host: 'x'.repeat(5000), origin: '', checkOrigin: false });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.words.length).toBeLessThan(400);
  });
});

describe('a bind host is loopback only for 127.0.0.0/8, ::1 and localhost', () => {
  const cases: Array<[string, boolean]> = [
    ['127.0.0.1', true], ['127.1.2.3', true], ['localhost', true], ['::1', true], ['[::1]', true],
    ['0.0.0.0', false], ['::', false], ['192.168.1.20', false], ['127.0.0.256', false], ['128.0.0.1', false], ['forge.example.lan', false],
  ];
  for (const [host, want] of cases) it(`${host}: ${want}`, () => expect(isLoopbackHost(host)).toBe(want));
});
