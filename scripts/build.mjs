// Builds forge: the server (tsc → dist/), the layering checks, and the web client (esbuild → dist/web/).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, cpSync, existsSync } from 'node:fs';
import { build } from 'esbuild';

const tsc = (project) => execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { stdio: 'inherit' });
tsc('tsconfig.json');
// src/shared must stay free of Node, uWS and DOM imports: checked with no node types and no DOM lib.
tsc('src/shared/tsconfig.json');
tsc('clients/web/tsconfig.json');

mkdirSync('dist/web', { recursive: true });
await build({
  // The frame worker is its own entry: the page starts it by URL (frames/worker.js).
  entryPoints: ['clients/web/main.ts', 'clients/web/terminal-page.ts', 'clients/web/frames/worker.ts', 'clients/web/dashboard/page.ts'],
  outbase: 'clients/web',
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  outdir: 'dist/web',
  sourcemap: true,
  minify: true,
  logLevel: 'warning',
  loader: { '.css': 'css' },
});
// The page, its styles, and the installable app's manifest with its icons.
for (const f of ['index.html', 'style.css', 'terminal.html', 'dashboard.html', 'manifest.webmanifest', 'icon.svg', 'icon-maskable.svg']) {
  if (existsSync(`clients/web/${f}`)) cpSync(`clients/web/${f}`, `dist/web/${f}`);
}
// The dashboard's charts.
if (existsSync('node_modules/uplot/dist/uPlot.min.css')) cpSync('node_modules/uplot/dist/uPlot.min.css', 'dist/web/uplot.css');
if (existsSync('node_modules/@xterm/xterm/css/xterm.css')) cpSync('node_modules/@xterm/xterm/css/xterm.css', 'dist/web/xterm.css');
writeFileSync('dist/.build-stamp', new Date().toISOString() + '\n');
