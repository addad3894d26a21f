/**
 * The page both MCP servers drive: a small orders app, a form and a table of 50 rows with a
 * button each, served from a local HTTP server so the network costs nothing.
 */
import { createServer, type Server } from 'node:http';

/** Rows in the orders table: a page an agent meets daily, not a toy and not a stress test. */
export const APP_ROWS = 50;

/** The row whose button the bench clicks. */
export const CLICK_ROW = 7;

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
<style>body{font:14px sans-serif;margin:16px}table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd}tr[aria-selected=true]{background:#ffd}</style>
</head><body>
<header><h1>Orders</h1><nav><a href="#orders">Orders</a> · <a href="#new">New order</a> · <a href="#help">Help</a></nav></header>
<main>
<section id="new"><h2>New order</h2>
<form id="order-form">
  <label>Customer <input name="customer" required></label>
  <label>Email <input name="email" type="email"></label>
  <label>Status <select name="status">${STATUSES.map((s) => `<option>${s}</option>`).join('')}</select></label>
  <label>Notes <textarea name="notes"></textarea></label>
  <label><input type="checkbox" name="urgent"> Urgent</label>
  <button type="submit">Add order</button>
</form></section>
<section id="orders"><h2>Orders</h2>
<p id="picked" role="status">0 selected</p>
<table><thead><tr><th>#</th><th>Customer</th><th>Status</th><th>Total</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table></section>
</main>
<footer id="help"><p>Orders demo · ${APP_ROWS} rows</p></footer>
<script>
  const picked = document.getElementById('picked');
  document.querySelector('tbody').addEventListener('click', (e) => {
    const b = e.target.closest('button.pick');
    if (!b) return;
    const tr = b.closest('tr');
    tr.setAttribute('aria-selected', tr.getAttribute('aria-selected') === 'true' ? 'false' : 'true');
    picked.textContent = document.querySelectorAll('tr[aria-selected=true]').length + ' selected';
  });
  document.getElementById('order-form').addEventListener('submit', (e) => { e.preventDefault(); });
</script>
</body></html>`;
}

export interface AppServer { url: string; close: () => Promise<void> }

export async function serveApp(): Promise<AppServer> {
  const html = appHtml();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    // An empty icon, so neither server reports the browser's favicon 404 as a console error.
    if (path === '/favicon.ico') { res.writeHead(204).end(); return; }
    if (path !== '/') { res.writeHead(404).end('not found'); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}
