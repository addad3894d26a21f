import { describe, expect, it } from 'vitest';
import { parseConfig, defaultConfig } from '../src/main/config.js';

describe('[cluster] in forge.toml', () => {
  it('without [cluster] forge is one process: the config names no cluster', () => {
    expect(defaultConfig().cluster).toBeUndefined();
    expect(parseConfig('[org]\nname = "acme"\n', 'forge.toml').cluster).toBeUndefined();
  });

  it('a node names its NATS server, its name, its token, and does all four roles unless told', () => {
    const cfg = parseConfig('[cluster]\nnats = "nats://10.0.0.5:4222, nats://10.0.0.6:4222"\nnode = "web-1"\ntoken = "s3cret"\n', 'forge.toml');
    expect(cfg.cluster).toEqual({ nats: ['nats://10.0.0.5:4222', 'nats://10.0.0.6:4222'], node: 'web-1', token: 's3cret', roles: ['browser', 'terminal', 'viewer', 'mcp'] });
    expect(parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "v"\nroles = ["viewer", "mcp"]\n', 'f.toml').cluster?.roles).toEqual(['viewer', 'mcp']);
  });

  it('a node may join as its own NATS user instead of the shared token, with both user and password', () => {
    const cfg = parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "web-1"\nuser = "web-1"\npassword = "pw"\n', 'f.toml');
    expect(cfg.cluster).toMatchObject({ user: 'web-1', password: 'pw' });
    expect(() => parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "a"\nuser = "a"\n', 'f.toml')).toThrow('f.toml:1: key cluster needs both user and password');
    expect(() => parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "a"\nuser = "a"\npassword = "p"\ntoken = "t"\n', 'f.toml')).toThrow('names a token and a user');
  });

  it('a missing URL or name, a bad URL, a node name no subject can carry and an unknown role are refused naming the key', () => {
    expect(() => parseConfig('[cluster]\nnode = "a"\n', 'f.toml')).toThrow('f.toml:1: key cluster needs nats = "nats://host:port"');
    expect(() => parseConfig('[cluster]\nnats = "nats://n:4222"\n', 'f.toml')).toThrow('f.toml:1: key cluster needs node = "name"');
    expect(() => parseConfig('[cluster]\nnats = "http://n:4222"\nnode = "a"\n', 'f.toml')).toThrow('f.toml:2: key cluster.nats "http://n:4222" is not a NATS URL');
    expect(() => parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "a.b"\n', 'f.toml')).toThrow('f.toml:3: key cluster.node "a.b" is not a valid node name');
    expect(() => parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "a"\nroles = ["browser", "gpu"]\n', 'f.toml')).toThrow('f.toml:4: key cluster.roles names "gpu"; the roles are browser, terminal, viewer, mcp');
    expect(() => parseConfig('[cluster]\nnats = "nats://n:4222"\nnode = "a"\nroles = "browser"\n', 'f.toml')).toThrow('f.toml:4: key cluster.roles must be a list of strings');
  });
});
