import { describe, expect, it } from 'vitest';
import { targetOf } from './locate.js';
import { isForgeError } from '../../shared/errors.js';

describe('an element named as the snapshot writes it', () => {
  it('a snapshot line that carries its ref names that ref', () => {
    expect(targetOf('button "Go" [ref=e5]')).toBe('e5');
    expect(targetOf('- textbox "Name" [active] [ref=f1e4]: Ada')).toBe('f1e4');
  });

  it('a role and a quoted name name exactly that element by role', () => {
    expect(targetOf('textbox "Name"')).toBe('role=textbox[name="Name"s]');
    expect(targetOf('- list "Tags":')).toBe('role=list[name="Tags"s]');
    expect(targetOf('- button "Say \\"hi\\""')).toBe('role=button[name="Say \\"hi\\""s]');
  });

  it('refs and selectors are left as given', () => {
    for (const t of ['e5', 'f2e10', 'role=button[name="Save"]', '#q', 'button[ref=e5]', 'div [ref=e5]', 'text=Go']) expect(targetOf(t)).toBe(t);
  });

  it.for([
    ["getByRole('button', { name: 'Submit' })", 'internal:role=button[name="Submit"i]'],
    ['getByText("Submit")', 'internal:text="Submit"i'],
    ["page.getByTestId('save')", 'internal:testid=[data-testid="save"s]'],
    ["page.locator('#q')", '#q'],
  ])('Playwright locator code %s names the selector it stands for', ([code, selector]) => {
    expect(targetOf(code)).toBe(selector);
  });

  it('locator code Playwright cannot read is refused in words, not looked up as CSS', () => {
    let caught: unknown;
    try { targetOf('getByRole(button'); } catch (e) { caught = e; }
    expect(isForgeError(caught, 'bad_request')).toBe(true);
    expect((caught as Error).message).toContain('is not Playwright locator code forge can read');
  });
});
