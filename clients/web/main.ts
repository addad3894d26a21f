/** The web client's entry: connects to the viewer socket with the token from the page's URL. */
import { startShell } from './shell.js';

const app = document.getElementById('app')!;
const params = new URLSearchParams(location.search);
// A hand-off link carries its own token in the path: /handoff/<token> shows that one page.
const linkToken = /^\/handoff\/([^/]+)/.exec(location.pathname)?.[1];
const token = linkToken ? decodeURIComponent(linkToken) : params.get('token');
if (!token) {
  app.textContent = 'This page needs its viewer link: open the address forge printed, which carries ?token=.';
} else {
  startShell(app, token, params.get('seat'), linkToken !== undefined);
}
