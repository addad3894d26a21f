import { describe, expect } from 'vitest';
import type WebSocket from 'ws';
import { forgeTest } from './fixtures.js';
import { openViewer, type TestViewer } from './helpers/viewer.js';
import { encodeControl } from '../src/shared/protocol.js';
import { SOCKET_INBOUND_MAX_BYTES } from '../src/shared/limits.js';

/** One socket for every case: each bad message must leave it usable for the next. */
let v: TestViewer;

const it = forgeTest();

it.beforeAll(async ({ forge }) => {
  v = await openViewer(forge.info.port, forge.info.viewer_token);
});

it.afterAll(async () => {
  await v?.close();
});

const cases: Array<{ name: string; send: (ws: WebSocket) => void; error: string | RegExp }> = [
  { name: 'a text frame', send: (ws) => ws.send('{"t":"tabs"}'), error: 'control messages are binary msgpack; a text message was ignored' },
  { name: 'truncated msgpack', send: (ws) => ws.send(encodeControl({ t: 'attach', w: 800, h: 600 }).slice(0, 5)), error: 'the message is not valid msgpack; the message was ignored' },
  { name: 'msgpack that is not a map', send: (ws) => ws.send(new Uint8Array([0x93, 1, 2, 3])), error: 'a control message must be a map with a "t" field; the message was ignored' },
  { name: 'a map without t', send: (ws) => ws.send(encodeControl({ x: 1 } as never)), error: 'a control message needs a "t" field naming its kind; the message was ignored' },
  { name: 'an unknown kind', send: (ws) => ws.send(encodeControl({ t: 'teleport' } as never)), error: 'unknown message kind "teleport"; it was ignored' },
  { name: 'an attach without a size', send: (ws) => ws.send(encodeControl({ t: 'attach', tab: 1 } as never)), error: 'a surface size needs numbers w and h (CSS px)' },
  { name: 'an input with a bad point', send: (ws) => ws.send(encodeControl({ t: 'input', ev: { type: 'mouse', action: 'down', x: 'left', y: 1 } } as never)), error: 'the input event was refused: x must be a number' },
  { name: 'an input of no known type', send: (ws) => ws.send(encodeControl({ t: 'input', ev: { type: 'smell' } } as never)), error: 'the input event was refused: type must be mouse, wheel, key or text' },
  { name: 'input from a viewer watching nothing', send: (ws) => ws.send(encodeControl({ t: 'input', ev: { type: 'text', text: 'x' } })), error: 'attach to a tab and take control before driving the page' },
  { name: 'a seat of another org', send: (ws) => ws.send(encodeControl({ t: 'tabs', seat: 'other/p/lead' })), error: 'this viewer\'s token is for org default, not other' },
];

describe('bad input on the viewer socket gets an answer in words and loses nothing', () => {
  for (const c of cases) {
    it(`${c.name} is answered with an error and the connection stays usable`, async () => {
      c.send(v.ws);
      const e = await v.next('error');
      expect(e.message).toEqual(c.error);
      v.send({ t: 'ping', id: 7 });
      expect((await v.next('pong')).id).toBe(7);
    });
  }

  it('a message over 16 MiB closes the socket with 1009, and the server serves the next viewer', async ({ forge }) => {
    const big = await openViewer(forge.info.port, forge.info.viewer_token);
    const closed = new Promise<number>((r) => big.ws.on('close', (code) => r(code)));
    big.ws.send(new Uint8Array(SOCKET_INBOUND_MAX_BYTES + 1));
    expect(await closed).toBe(1009);
    const after = await openViewer(forge.info.port, forge.info.viewer_token);
    after.send({ t: 'ping', id: 1 });
    expect((await after.next('pong')).id).toBe(1);
    await after.close();
  });
});
