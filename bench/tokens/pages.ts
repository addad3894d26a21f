/**
 * The site the token bench walks: a sign-in form, a 300-product list with filters, a paginated
 * orders table with a modal, and a search whose results re-render on every input — the pages an
 * agent meets daily, served from a local HTTP server.
 */
import { createServer, type Server } from 'node:http';

/** Products in the list: a long page, where whole snapshots cost most. */
export const PRODUCTS = 300;
/** Orders in the table, and how many one page of it shows. */
export const ORDERS = 200;
export const ORDERS_PER_PAGE = 20;

const CATEGORIES = ['Kitchen', 'Garden', 'Office', 'Toys', 'Sports', 'Books'];
/** Product n's category and whether it is in stock, for the bench to know what a filter must show. */
export const categoryOf = (n: number): string => CATEGORIES[(n - 1) % CATEGORIES.length];
export const inStock = (n: number): boolean => n % 5 !== 0;
const DISHES = ['apple pie', 'apple crumble', 'apricot tart', 'banana bread', 'banana split', 'blueberry muffin', 'carrot cake', 'cherry clafoutis', 'lemon drizzle', 'plum cake'];

const page = (title: string, body: string): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:14px sans-serif;margin:16px}dialog::backdrop{background:#0004}</style></head><body>${body}</body></html>`;

const SIGN_IN = page('Sign in', `<h1>Sign in</h1>
<form action="/products" method="get">
  <label>Email <input name="email" type="email" required></label>
  <label>Password <input name="password" type="password" required></label>
  <button>Sign in</button>
</form>`);

function products(email: string): string {
  const items = Array.from({ length: PRODUCTS }, (_, i) => {
    const n = i + 1;
    const cat = categoryOf(n);
    const stock = inStock(n);
    return `<li data-cat="${cat}" data-stock="${stock}">Product ${n} · ${cat} · ${(n * 1.7).toFixed(2)} € · ${stock ? 'in stock' : 'sold out'} <button data-n="${n}">Add product ${n} to cart</button></li>`;
  }).join('\n');
  return page('Products', `<header><h1>Products</h1><p>Signed in as ${email.replace(/[<&"]/g, '')}</p><p id="cart">Cart: 0 items</p><a href="/orders">Orders</a></header>
<section aria-label="Filters">
  <label>Category <select id="cat"><option value="">All</option>${CATEGORIES.map((c) => `<option>${c}</option>`).join('')}</select></label>
  <label><input type="checkbox" id="stock"> In stock only</label>
</section>
<p id="count">Showing ${PRODUCTS} of ${PRODUCTS}</p>
<ul id="list">${items}</ul>
<script>
  let cart = 0;
  const apply = () => {
    let shown = 0;
    for (const li of list.children) {
      const ok = (!cat.value || li.dataset.cat === cat.value) && (!stock.checked || li.dataset.stock === 'true');
      li.hidden = !ok; if (ok) shown++;
    }
    count.textContent = 'Showing ' + shown + ' of ${PRODUCTS}';
  };
  cat.onchange = apply; stock.onchange = apply;
  list.onclick = (e) => { if (e.target.dataset.n) { cart++; document.getElementById('cart').textContent = 'Cart: ' + cart + (cart === 1 ? ' item' : ' items'); } };
</script>`);
}

const ORDERS_PAGE = page('Orders', `<h1>Orders</h1>
<table><thead><tr><th>Order</th><th>Customer</th><th>Total</th><th></th></tr></thead><tbody id="rows"></tbody></table>
<p><button id="prev">Previous page</button> <span id="at"></span> <button id="next">Next page</button></p>
<dialog id="modal" aria-labelledby="mt"><h2 id="mt"></h2><p id="mbody"></p><button id="close">Close</button></dialog>
<script>
  let at = 0;
  const pages = Math.ceil(${ORDERS} / ${ORDERS_PER_PAGE});
  const render = () => {
    let html = '';
    for (let i = at * ${ORDERS_PER_PAGE}; i < Math.min(${ORDERS}, (at + 1) * ${ORDERS_PER_PAGE}); i++) {
      const id = 1001 + i;
      html += '<tr><td>' + id + '</td><td>Customer ' + (i % 37) + '</td><td>' + (i * 3.1).toFixed(2) + ' €</td><td><button data-id="' + id + '">View order ' + id + '</button></td></tr>';
    }
    rows.innerHTML = html;
    document.getElementById('at').textContent = 'Page ' + (at + 1) + ' of ' + pages;
  };
  prev.onclick = () => { if (at > 0) { at--; render(); } };
  next.onclick = () => { if (at < pages - 1) { at++; render(); } };
  rows.onclick = (e) => {
    const id = e.target.dataset.id; if (!id) return;
    mt.textContent = 'Order ' + id; mbody.textContent = 'Ordered by customer ' + ((id - 1001) % 37) + '; three items; paid by card.';
    modal.showModal();
  };
  document.getElementById('close').onclick = () => modal.close();
  render();
</script>`);

const SEARCH = page('Recipes', `<h1>Recipes</h1>
<label>Filter recipes <input id="q"></label>
<div id="out"></div>
<script>
  const all = ${JSON.stringify(DISHES)};
  // Re-rendered whole on every input, as a framework without keyed lists does.
  const render = () => {
    const hits = all.filter((d) => d.includes(q.value.toLowerCase()));
    out.innerHTML = '<p>' + hits.length + ' results</p><ul>' + hits.map((d) => '<li><a href="#' + d.replace(/ /g, '-') + '">Recipe: ' + d + '</a></li>').join('') + '</ul>';
  };
  q.oninput = render;
  render();
</script>`);

export interface TokenSite { origin: string; close: () => Promise<void> }

export async function serveTokenSite(): Promise<TokenSite> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const html = url.pathname === '/signin' ? SIGN_IN
      : url.pathname === '/products' ? products(url.searchParams.get('email') ?? '')
      : url.pathname === '/orders' ? ORDERS_PAGE
      : url.pathname === '/recipes' ? SEARCH : undefined;
    if (!html) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
