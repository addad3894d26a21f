/**
 * The page both MCP servers drive: a small orders app (a form with a help tooltip, an
 * attachment and a discard confirmation, a dispatch board to drag orders onto, a table of 50
 * rows with a button each, a shortcut key) that logs to the console and fetches its summary
 * from the app's API, served with an order's own page from a local HTTP server so the network
 * costs nothing.
 */
import { createServer, type Server } from 'node:http';

/** Rows in the orders table: a page an agent meets daily, not a toy and not a stress test. */
export const APP_ROWS = 50;

/** The row whose button the bench clicks. */
export const CLICK_ROW = 7;

/** The order on the dispatch board's backlog, dragged onto the urgent list. */
export const DRAG_ORDER = 1003;

/** The order's own page the bench opens, to go back from. */
export const DETAIL_ORDER = 1000 + CLICK_ROW;

/** The summary the page fetches from the app's API as it loads. */
export const SUMMARY_PATH = '/api/summary';

/** What the page logs once its summary arrived. */
export const LOADED_LOG = `orders: ${APP_ROWS} rows loaded`;

const STATUSES = ['new', 'paid', 'packed', 'shipped', 'returned'];

function row(i: number): string {
  const id = 1000 + i;
  return `<tr data-id="${id}"><td>${id}</td><td>Customer ${i}</td><td>${STATUSES[i % STATUSES.length]}</td>`
    + `<td>${(i * 13.7).toFixed(2)} €</td><td><button type="button" class="pick">Select order ${id}</button></td></tr>`;
}

export function appHtml(): string {
  const rows = Array.from({ length: APP_ROWS }, (_, i) => row(i + 1)).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Orders</title>
<style>body{font:14px sans-serif;margin:16px}table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd}tr[aria-selected=true]{background:#ffd}
[role=tooltip]{position:absolute;background:#333;color:#fff;padding:4px 8px;border-radius:4px}
.board{display:flex;gap:16px}.board ul{min-width:180px;min-height:48px;border:1px dashed #999;padding:8px;list-style:none}.board li{cursor:grab;padding:2px 4px;background:#eef}</style>
</head><body>
<header><h1>Orders</h1><nav><a href="#orders">Orders</a> · <a href="#new">New order</a> · <a href="#dispatch">Dispatch</a> · <a href="#help">Help</a></nav>
<p id="summary">Loading summary…</p><p id="activity" role="status">Ready</p></header>
<main>
<section id="new"><h2>New order</h2>
<form id="order-form">
  <label>Customer <input name="customer" required></label>
  <label>Email <input name="email" type="email"></label>
  <label>Status <select name="status">${STATUSES.map((s) => `<option>${s}</option>`).join('')}</select></label>
  <button type="button" id="status-help" aria-describedby="status-tip">Status help</button>
  <div role="tooltip" id="status-tip" hidden>Orders go new, paid, packed, shipped</div>
  <label>Notes <textarea name="notes"></textarea></label>
  <label>Attachment <input type="file" name="attachment"></label>
  <label><input type="checkbox" name="urgent"> Urgent</label>
  <button type="submit">Add order</button>
  <button type="button" id="discard">Discard draft</button>
</form></section>
<section id="dispatch"><h2>Dispatch</h2>
<div class="board">
  <ul id="backlog" aria-label="Backlog"><li draggable="true" data-id="${DRAG_ORDER}">Order ${DRAG_ORDER}</li><li draggable="true" data-id="1004">Order 1004</li></ul>
  <ul id="urgent" aria-label="Urgent orders"></ul>
</div></section>
<section id="orders"><h2>Orders</h2>
<p id="picked" role="status">0 selected</p>
<table><thead><tr><th>#</th><th>Customer</th><th>Status</th><th>Total</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table></section>
</main>
<footer id="help"><p>Orders demo · ${APP_ROWS} rows · Escape clears the selection</p></footer>
<script>
  const picked = document.getElementById('picked');
  const activity = document.getElementById('activity');
  const say = (what) => { activity.textContent = what; };
  const countPicked = () => { picked.textContent = document.querySelectorAll('tr[aria-selected=true]').length + ' selected'; };
  document.querySelector('tbody').addEventListener('click', (e) => {
    const b = e.target.closest('button.pick');
    if (!b) return;
    const tr = b.closest('tr');
    tr.setAttribute('aria-selected', tr.getAttribute('aria-selected') === 'true' ? 'false' : 'true');
    countPicked();
  });
  const form = document.getElementById('order-form');
  form.addEventListener('submit', (e) => { e.preventDefault(); });
  form.customer.addEventListener('input', () => say('Draft for ' + form.customer.value));
  form.status.addEventListener('change', () => say('Status set to ' + form.status.value));
  form.attachment.addEventListener('change', () => say('Attached ' + [...form.attachment.files].map((f) => f.name).join(', ')));
  document.getElementById('discard').addEventListener('click', () => {
    if (confirm('Discard this draft?')) { form.reset(); say('Draft discarded'); }
  });
  const help = document.getElementById('status-help');
  const tip = document.getElementById('status-tip');
  help.addEventListener('mouseenter', () => { tip.hidden = false; });
  help.addEventListener('mouseleave', () => { tip.hidden = true; });
  document.getElementById('backlog').addEventListener('dragstart', (e) => {
    e.dataTransfer.setData('application/x-order', e.target.dataset.id);
    e.dataTransfer.setData('text/plain', e.target.textContent);
  });
  const urgent = document.getElementById('urgent');
  urgent.addEventListener('dragover', (e) => e.preventDefault());
  urgent.addEventListener('drop', (e) => {
    e.preventDefault();
    const id = e.dataTransfer.getData('application/x-order');
    const item = id ? document.querySelector('#backlog li[data-id="' + id + '"]') : null;
    if (item) { urgent.append(item); say('Order ' + id + ' moved to urgent'); return; }
    const text = e.dataTransfer.getData('text/plain').trim();
    if (!text) return;
    const li = document.createElement('li');
    li.textContent = text;
    urgent.append(li);
    say('Dropped ' + text + ' on urgent');
  });
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    document.querySelectorAll('tr[aria-selected=true]').forEach((tr) => tr.setAttribute('aria-selected', 'false'));
    countPicked();
    say('Selection cleared');
  });
  fetch('${SUMMARY_PATH}').then((r) => r.json()).then((s) => {
    document.getElementById('summary').textContent = s.orders + ' orders, ' + s.urgent + ' urgent';
    console.log(${JSON.stringify(LOADED_LOG)});
  });
</script>
</body></html>`;
}

function detailHtml(id: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Order ${id}</title></head><body>
<h1>Order ${id}</h1><p>Customer ${id - 1000} · ${STATUSES[(id - 1000) % STATUSES.length]}</p>
<p><a href="/">All orders</a></p>
</body></html>`;
}

export interface AppServer { url: string; detailUrl: string; close: () => Promise<void> }

export async function serveApp(): Promise<AppServer> {
  const html = appHtml();
  const summary = JSON.stringify({ orders: APP_ROWS, urgent: 0 });
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const headers = { 'cache-control': 'no-store' };
    // An empty icon, so neither server reports the browser's favicon 404 as a console error.
    if (path === '/favicon.ico') { res.writeHead(204).end(); return; }
    if (path === '/') { res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(html); return; }
    if (path === SUMMARY_PATH) { res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(summary); return; }
    const order = /^\/orders\/(\d+)$/.exec(path);
    if (order) { res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(detailHtml(Number(order[1]))); return; }
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    detailUrl: `${url}orders/${DETAIL_ORDER}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
