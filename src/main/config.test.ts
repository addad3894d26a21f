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

  it('file: URLs are refused unless [browser] allow_file_urls = true, and the key takes only true or false', () => {
    expect(defaultConfig().browser.allowFileUrls).toBe(false);
    expect(parseConfig('[browser]\nallow_file_urls = true\n', 'forge.toml').browser.allowFileUrls).toBe(true);
    expect(() => parseConfig('[browser]\nallow_file_urls = "yes"\n', 'f.toml')).toThrow('f.toml:2: key browser.allow_file_urls must be a boolean');
  });

  it('a key of the wrong type is refused naming it', () => {
    expect(() => parseConfig('[server]\nport = "eighty"\n', 'f.toml')).toThrow('f.toml:2: key server.port must be a number');
  });
});
