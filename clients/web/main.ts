/** The web client's entry: connects to the viewer socket with the token from the page's URL. */
const app = document.getElementById('app')!;
app.textContent = 'forge';
