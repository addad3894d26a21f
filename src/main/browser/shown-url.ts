/**
 * Addresses as answers show them: a data: URL is the page's own content, so past a length only
 * its start and its length are shown, wherever it appears (the page line, the tab list, a console
 * line Chromium wrote it into).
 */

/**
 * Longest data: URL a page line shows whole, characters: past it only its start and its length
 * are shown. The page's own content, written again on every answer, would be most of the answer
 * (a form of a few fields is 1,000 characters) and tell the agent nothing the snapshot does not.
 */
export const DATA_URL_SHOWN_CHARS = 100;

/** An address as a page line shows it: a long data: URL cut to its start and length. */
export function shownUrl(url: string): string {
  if (!url.startsWith('data:') || url.length <= DATA_URL_SHOWN_CHARS) return url;
  return `${url.slice(0, DATA_URL_SHOWN_CHARS)}… (a data: URL of ${url.length} characters)`;
}

/**
 * A console message or a place in a script with its long data: URLs cut as shownUrl cuts them. A
 * data: URL holds spaces and quotes, so one in a message is taken to run to the end of its line
 * (Chromium writes it last); a place keeps its `:line` after the cut.
 */
export function shownDataUrls(text: string): string {
  if (!text.includes('data:')) return text;
  return text.replace(/data:[^\n]*/g, (u) => {
    const at = /^(.*?)(:\d+(?::\d+)?)$/.exec(u);
    return at && at[1]!.length > DATA_URL_SHOWN_CHARS ? `${shownUrl(at[1]!)}${at[2]}` : shownUrl(u);
  });
}
