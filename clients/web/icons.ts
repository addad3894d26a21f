/**
 * Icons drawn as inline SVG in the text's own colour: a glyph such as 🔊 needs an emoji font, and
 * a machine without one draws an empty box where the control should say what it does.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An icon's side, CSS px: the size of the bar's text. */
const ICON_PX = 16;

/** A speaker: silent, playing (sound waves) or muted (crossed out). */
export function speakerIcon(state: 'silent' | 'playing' | 'muted'): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', String(ICON_PX));
  svg.setAttribute('height', String(ICON_PX));
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.dataset.icon = `speaker-${state}`;
  const path = (d: string, fill: boolean): void => {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', d);
    p.setAttribute('fill', fill ? 'currentColor' : 'none');
    p.setAttribute('stroke', fill ? 'none' : 'currentColor');
    p.setAttribute('stroke-width', '1.5');
    p.setAttribute('stroke-linecap', 'round');
    svg.append(p);
  };
  path('M2 6h3l4-3v10l-4-3H2z', true);
  if (state === 'playing') path('M11 5.5a3.5 3.5 0 0 1 0 5M12.5 3.5a6 6 0 0 1 0 9', false);
  if (state === 'muted') path('M11 6l4 4M15 6l-4 4', false);
  return svg;
}
