import { describe, expect } from 'vitest';
import type { Agent } from './helpers/server.js';
import { refOf, type ToolPages } from './helpers/tool-pages.js';
import { toolPagesTest } from './fixtures.js';

let pages: ToolPages;
let a: Agent;

const FORM = `<html><head><title>Form</title></head><body><form onsubmit="event.preventDefault()">
  <label>Full name <input id="fullname"></label>
  <label><input type="checkbox" id="terms"> I agree</label>
  <label><input type="radio" name="plan" id="basic" value="basic" checked> Basic</label>
  <label><input type="radio" name="plan" id="pro" value="pro"> Pro</label>
  <label>Country <select id="country"><option value="fr">France</option><option value="de">Germany</option></select></label>
  <label>Volume <input type="range" id="volume" min="0" max="100" value="10"></label>
  <label>Toppings <select id="toppings" multiple><option value="ham">Ham</option><option value="egg">Egg</option><option value="kale">Kale</option></select></label>
</form></body></html>`;

const it = toolPagesTest({}, { '/': FORM });

it.beforeAll(async ({ toolPages, agentFor }) => {
  pages = toolPages;
  a = await agentFor('default/forms/lead');
});

const values = async (): Promise<unknown> => {
  const r = await a.call('browser_evaluate', { function: `() => ({ name: fullname.value, terms: terms.checked, pro: pro.checked, country: country.value, volume: volume.value, toppings: [...toppings.selectedOptions].map((o) => o.value) })` });
  return JSON.parse(r.text.slice(r.text.indexOf('{'), r.text.lastIndexOf('}') + 1));
};

describe('forms are filled as an agent asks, and read back so', () => {
  it('fill_form fills a textbox, a checkbox, a radio, a combobox and a slider', async () => {
    const snap = (await a.call('browser_navigate', { url: pages.url })).text;
    const r = await a.call('browser_fill_form', {
      fields: [
        { name: 'Full name', type: 'textbox', target: refOf(snap, 'textbox', 'Full name'), value: 'Ada Lovelace' },
        { name: 'I agree', type: 'checkbox', target: refOf(snap, 'checkbox', 'I agree'), value: 'true' },
        { name: 'Pro', type: 'radio', ref: refOf(snap, 'radio', 'Pro'), value: 'true' },
        { name: 'Country', type: 'combobox', target: refOf(snap, 'combobox', 'Country'), value: 'Germany' },
        { name: 'Volume', type: 'slider', target: refOf(snap, 'slider', 'Volume'), value: '70' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(await values()).toMatchObject({ name: 'Ada Lovelace', terms: true, pro: true, country: 'de', volume: '70' });
  });

  it('a checkbox value other than true or false is refused before any field is touched', async () => {
    const snap = (await a.call('browser_snapshot')).text;
    const r = await a.call('browser_fill_form', {
      fields: [
        { name: 'Full name', type: 'textbox', target: refOf(snap, 'textbox', 'Full name'), value: 'Grace' },
        { name: 'I agree', type: 'checkbox', target: refOf(snap, 'checkbox', 'I agree'), value: 'yes' },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('its value is true or false');
    expect(await values()).toMatchObject({ name: 'Ada Lovelace' });
  });

  it('a field whose ref no longer resolves is refused before any field is touched', async () => {
    const snap = (await a.call('browser_snapshot')).text;
    const r = await a.call('browser_fill_form', {
      fields: [
        { name: 'Full name', type: 'textbox', target: refOf(snap, 'textbox', 'Full name'), value: 'Grace' },
        { name: 'Gone', type: 'textbox', target: 'e9999', value: 'x' },
        { name: 'Volume', type: 'slider', target: refOf(snap, 'slider', 'Volume'), value: '20' },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('ref e9999 does not resolve');
    expect(await values()).toMatchObject({ name: 'Ada Lovelace', volume: '70' });
  });

  it('a field that cannot take its value is named in the error, with the fields before it filled and the rest not', async () => {
    const snap = (await a.call('browser_snapshot')).text;
    const r = await a.call('browser_fill_form', {
      fields: [
        { name: 'Full name', type: 'textbox', target: refOf(snap, 'textbox', 'Full name'), value: 'Grace Hopper' },
        { name: 'I agree', type: 'combobox', target: refOf(snap, 'checkbox', 'I agree'), value: 'yes' },
        { name: 'Volume', type: 'slider', target: refOf(snap, 'slider', 'Volume'), value: '30' },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^filling field 2 of 3, "I agree" \(a combobox\) on tab \d+ \(p-[0-9a-f]+\) failed: .*select.*; field 1 was filled, the rest were not$/);
    expect(await values()).toMatchObject({ name: 'Grace Hopper', volume: '70' });
  });

  it('select_option selects by value or by text, several in a multiple select', async () => {
    const snap = (await a.call('browser_snapshot')).text;
    const r = await a.call('browser_select_option', { element: 'Toppings', target: refOf(snap, 'listbox', 'Toppings'), values: ['ham', 'Kale'] });
    expect(r.isError).toBe(false);
    await a.call('browser_select_option', { target: refOf(snap, 'combobox', 'Country'), values: ['fr'] });
    expect(await values()).toMatchObject({ toppings: ['ham', 'kale'], country: 'fr' });
  });

  it('type slowly sends each key', async () => {
    const snap = (await a.call('browser_snapshot')).text;
    await a.call('browser_evaluate', { function: "() => { window.keys = 0; fullname.value = ''; fullname.addEventListener('keydown', () => window.keys++); }" });
    await a.call('browser_type', { target: refOf(snap, 'textbox', 'Full name'), text: 'abc', slowly: true });
    const r = await a.call('browser_evaluate', { function: '() => [fullname.value, window.keys]' });
    expect(r.text.replace(/\s/g, '')).toContain('["abc",3]');
  });
});
