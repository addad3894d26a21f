import { describe, expect, it } from 'vitest';
import { readSession } from './devtools-door.js';

const b = (s: string): Buffer => Buffer.from(s);

describe('readSession', () => {
  it('reads the session Chromium puts last on an answer or an event', () => {
    const raw = b('{"id":7,"result":{"value":1},"sessionId":"50BA158ED150B94233669CA8E8485291"}');
    expect(readSession(raw)).toEqual({ id: '50BA158ED150B94233669CA8E8485291', tailBytes: ',"sessionId":"50BA158ED150B94233669CA8E8485291"}'.length });
    expect(readSession(b('{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"AB12"}'))?.id).toBe('AB12');
  });

  it('finds none on the root session, even where a parameter named sessionId ends the message', () => {
    expect(readSession(b('{"id":1,"result":{"sessionId":"AB12"}}'))).toBeUndefined();
    expect(readSession(b('{"method":"Target.detachedFromTarget","params":{"targetId":"T","sessionId":"AB12"}}'))).toBeUndefined();
  });

  it('finds none where the key sits inside a string value', () => {
    expect(readSession(b('{"method":"Runtime.consoleAPICalled","params":{"text":"x\\",\\"sessionId\\":\\"AB12\\"}"}'))).toBeUndefined();
  });
});
