import { describe, expect, it } from 'vitest';
import { parseConfig, profileKeyFor, defaultConfig } from './config.js';

describe('forge.toml', () => {
  it('the embedded default is org default, profile default', () => {
    expect(profileKeyFor(defaultConfig(), 'any')).toBe('default/default');
  });

  it('a project override gives the profile key <org>/<override>', () => {
    const cfg = parseConfig('[org]\nname = "acme"\nbrowser_profile = "main"\n\n[project]\nname = "shop"\nbrowser_profile = "shop"\n', 'forge.toml');
    expect(profileKeyFor(cfg, 'shop')).toBe('acme/shop');
    expect(profileKeyFor(cfg, 'other')).toBe('acme/main');
  });

  it('an unknown key is refused naming the file, line and key', () => {
    expect(() => parseConfig('[org]\nname = "acme"\n\n[browser]\nidle_minutes = 5\ncolour = "red"\n', 'conf/forge.toml'))
      .toThrow('conf/forge.toml:6: key browser.colour is not a forge.toml key');
  });

  it('malformed TOML is refused naming the file and line', () => {
    expect(() => parseConfig('[org]\nname = "acme\n', 'forge.toml')).toThrow(/^forge\.toml:2: /);
  });

  it('a seat outlives its last session by [agent] reconnect_grace_s, 120 s unless set, 0 or more', () => {
    expect(parseConfig('', 'forge.toml').agent.reconnectGraceS).toBe(120);
    expect(parseConfig('[agent]\nreconnect_grace_s = 0\n', 'forge.toml').agent.reconnectGraceS).toBe(0);
    expect(() => parseConfig('[agent]\nreconnect_grace_s = -1\n', 'f.toml')).toThrow('f.toml:2: key agent.reconnect_grace_s must be a number of seconds, 0 or more');
  });

  it('file: URLs are refused unless [agent] allow_file_urls = true, and the key takes only true or false', () => {
    expect(defaultConfig().agent.allowFileUrls).toBe(false);
    expect(parseConfig('[agent]\nallow_file_urls = true\n', 'forge.toml').agent.allowFileUrls).toBe(true);
    expect(() => parseConfig('[agent]\nallow_file_urls = "yes"\n', 'f.toml')).toThrow('f.toml:2: key agent.allow_file_urls must be a boolean');
  });

  it('each host keeps a spare window unless [browser] spare_window = false, and the key takes true or false only', () => {
    expect(defaultConfig().browser.spareWindow).toBe(true);
    expect(parseConfig('[browser]\nspare_window = false\n', 'f.toml').browser.spareWindow).toBe(false);
    expect(() => parseConfig('[browser]\nspare_window = "no"\n', 'f.toml')).toThrow(/browser\.spare_window/);
  });

  it('the hidden-tab budget is 6 agent tabs and 3 person tabs unless set, each a whole number of at least 1; max_live_tabs is gone', () => {
    expect(defaultConfig().browser).toMatchObject({ hiddenAgentTabs: 6, hiddenPersonTabs: 3 });
    expect(parseConfig('[browser]\nhidden_agent_tabs = 2\nhidden_person_tabs = 1\n', 'f.toml').browser).toMatchObject({ hiddenAgentTabs: 2, hiddenPersonTabs: 1 });
    expect(() => parseConfig('[browser]\nhidden_agent_tabs = 0\n', 'f.toml')).toThrow('f.toml:2: key browser.hidden_agent_tabs must be a whole number, at least 1');
    expect(() => parseConfig('[browser]\nhidden_person_tabs = 1.5\n', 'f.toml')).toThrow('f.toml:2: key browser.hidden_person_tabs must be a whole number, at least 1');
    expect(() => parseConfig('[browser]\nmax_live_tabs = 24\n', 'f.toml')).toThrow('f.toml:2: key browser.max_live_tabs is not a forge.toml key');
  });

  it('actions answer what changed unless [agent] snapshot = "full", and the key takes only diff or full', () => {
    expect(defaultConfig().agent.snapshot).toBe('diff');
    expect(parseConfig('[agent]\nsnapshot = "full"\n', 'forge.toml').agent.snapshot).toBe('full');
    expect(() => parseConfig('[agent]\nsnapshot = "some"\n', 'f.toml')).toThrow('f.toml:2: key agent.snapshot must be "diff" or "full"');
  });

  it('a key of the wrong type is refused naming it', () => {
    expect(() => parseConfig('[server]\nport = "eighty"\n', 'f.toml')).toThrow('f.toml:2: key server.port must be a number');
  });

  it('tls_cert and tls_key are read beside the config file, each with its line', () => {
    const cfg = parseConfig('[server]\nhost = "0.0.0.0"\ntls_cert = "cert.pem"\ntls_key = "/etc/forge/key.pem"\n', '/srv/forge/forge.toml');
    expect(cfg.server.tls).toEqual({ cert: { path: '/srv/forge/cert.pem', line: 3 }, key: { path: '/etc/forge/key.pem', line: 4 } });
  });

  it('a certificate without its key is refused naming the key that is missing', () => {
    expect(() => parseConfig('[server]\ntls_cert = "cert.pem"\n', 'f.toml')).toThrow('f.toml:2: key server.tls_cert needs server.tls_key beside it');
  });

  it('public_url is kept as an origin; a path or a non-http scheme is refused naming the key', () => {
    expect(parseConfig('[server]\npublic_url = "https://Forge.Example.com/"\n', 'f.toml').server.publicUrl).toBe('https://forge.example.com');
    expect(() => parseConfig('[server]\npublic_url = "https://forge.example.com/forge"\n', 'f.toml')).toThrow('f.toml:2: key server.public_url must be an origin only, like https://forge.example.com');
    expect(() => parseConfig('[server]\npublic_url = "ftp://forge.example.com"\n', 'f.toml')).toThrow('f.toml:2: key server.public_url must be an https:// (or http://) URL');
    expect(() => parseConfig('[server]\npublic_url = "forge.example.com"\n', 'f.toml')).toThrow('f.toml:2: key server.public_url "forge.example.com" is not a URL');
  });

  it('plain HTTP beyond loopback is refused unless insecure_remote says a TLS proxy stands in front', () => {
    expect(() => parseConfig('[server]\nport = 7300\nhost = "0.0.0.0"\n', 'f.toml'))
      .toThrow('f.toml:3: forge will not serve plain HTTP on 0.0.0.0 without TLS: set [server] tls_cert and tls_key, or put it behind a TLS proxy and set [server] insecure_remote = true');
    expect(parseConfig('[server]\nhost = "0.0.0.0"\ninsecure_remote = true\n', 'f.toml').server.insecureRemote).toBe(true);
    expect(parseConfig('[server]\nhost = "127.0.0.2"\n', 'f.toml').server.host).toBe('127.0.0.2');
    expect(() => parseConfig('[server]\ninsecure_remote = "yes"\n', 'f.toml')).toThrow('f.toml:2: key server.insecure_remote must be a boolean');
  });

  it('no opt-in tool group is offered unless [agent] caps names it, and a name that is no group is refused', () => {
    expect(defaultConfig().agent.caps).toEqual([]);
    expect(parseConfig('[agent]\ncaps = ["vision", "pdf", "vision"]\n', 'forge.toml').agent.caps).toEqual(['vision', 'pdf']);
    expect(() => parseConfig('[agent]\ncaps = ["visoin"]\n', 'f.toml')).toThrow('f.toml:2: key agent.caps names "visoin", not a tool group (vision, pdf, storage, network, testing, devtools)');
    expect(parseConfig('[agent]\ncaps = ["devtools"]\n', 'f.toml').agent.caps).toEqual(['devtools']);
    expect(() => parseConfig('[agent]\ncaps = "vision"\n', 'f.toml')).toThrow('f.toml:2: key agent.caps must be a list of strings');
    expect(defaultConfig().agent.allowRunCode).toBe(false);
  });
});
