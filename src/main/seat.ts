/** A seat is `org/project/label`: who an agent is. The lead of a project is the seat labelled `lead`. */
import { ForgeError } from '../shared/errors.js';

export interface Seat { org: string; project: string; label: string; key: string }

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function parseSeat(text: string | null | undefined): Seat {
  const parts = (text ?? '').split('/');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) {
    throw new ForgeError('bad_request', `a seat is ORG/PROJECT/LABEL (letters, digits, . _ -), not "${(text ?? '').slice(0, 200)}"`);
  }
  const [org, project, label] = parts;
  return { org, project, label, key: `${org}/${project}/${label}` };
}

export function isLead(seat: Seat): boolean {
  return seat.label === 'lead';
}
