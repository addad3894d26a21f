import { describe, expect, it } from 'vitest';
import { TerminalRecord } from './record.js';
import { TERM_STATE } from '../../shared/terminal.js';

function live(): TerminalRecord {
  const r = new TerminalRecord(1, 1, 'default/p/lead', '/bin/bash', '/tmp', 80, 24);
  r.phase = 'live';
  return r;
}

describe('the state line each viewer reads', () => {
  it('tells the holder they have control and everyone else that another client has the keyboard', () => {
    const r = live();
    r.holder = 7;
    expect(r.stateFor(7)).toBe(TERM_STATE.youHaveControl);
    expect(r.stateFor(8)).toBe(TERM_STATE.otherHasKeyboard);
    expect(r.stateMessage(7)).toMatchObject({ role: 'holder' });
    expect(r.stateMessage(8)).toMatchObject({ role: 'watcher' });
  });

  it('puts a parked hand-off before the agent\'s own work, and says when typing is hidden', () => {
    const r = live();
    r.facts = { ...r.facts, busy: true, password: true };
    expect(r.stateFor(1)).toBe(TERM_STATE.running);
    r.handOff = { reason: 'sudo', hidden: false, answer: () => undefined };
    expect(r.stateFor(1)).toBe(TERM_STATE.waitingForYou);
    expect(r.stateMessage(1)).toMatchObject({ handOff: { reason: 'sudo', hidden: true } });
  });

  it('says a password is wanted, the agent is waiting, or view only, in that order', () => {
    const r = live();
    r.agentWaits = 1;
    expect(r.stateFor(1)).toBe(TERM_STATE.agentWaiting);
    r.facts = { ...r.facts, password: true };
    expect(r.stateFor(1)).toBe(TERM_STATE.password);
    r.facts = { ...r.facts, password: false };
    r.agentWaits = 0;
    expect(r.stateFor(1)).toBe(TERM_STATE.viewOnly);
  });

  it('an ended terminal says so to everyone, the holder included', () => {
    const r = live();
    r.holder = 7;
    r.phase = 'exited';
    expect(r.stateFor(7)).toBe(TERM_STATE.exited);
    r.phase = 'closed';
    expect(r.stateFor(8)).toBe(TERM_STATE.closed);
  });
});
