import { invalid, type FieldError } from './refusals.js';

/**
 * No text the service is given may hold U+0000 (NUL): PostgreSQL cannot store it in a text
 * column (SQLSTATE 22021), and what one engine cannot store the other must not accept
 * either, so that every operation behaves the same on both. Checked once for every request
 * (executor/run.ts) and once for every import item (import/validate.ts).
 */
const NUL = '\u0000';

/** A value met in the walk: where it sits (its parent's entry and its key there). */
interface Place {
  parent: number;
  key: string | number;
}

/** `Customer.Firstname`, `EventTypes[2]`: the path of entry `at`, built only for a text that is refused. */
function pathOf(places: Place[], at: number): string {
  const segments: string[] = [];
  for (let place = places[at]; place.parent >= 0; place = places[place.parent]) {
    segments.push(typeof place.key === 'number' ? `[${place.key}]` : place.key);
  }
  return segments.reverse().reduce((path, segment) => (path === '' || segment.startsWith('[') ? path + segment : `${path}.${segment}`), '');
}

/**
 * One InvalidCharacter error for each text in `value` (path, query, body or import item,
 * nested objects and lists included) that holds a NUL, in document order, named by its
 * path as FieldName. Walked with a stack of its own, not recursion: a body may nest
 * thousands of levels deep, and only the schema, checked later, refuses that.
 */
export function nulCharacterErrors(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const places: Place[] = [{ parent: -1, key: '' }];
  const pending: Array<[value: unknown, at: number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes(NUL)) errors.push(invalid('InvalidCharacter', pathOf(places, at), (name) => `${name} must not contain the NUL character.`));
    } else if (item !== null && typeof item === 'object') {
      const entries: Array<[string | number, unknown]> = Array.isArray(item) ? item.map((v, i) => [i, v]) : Object.entries(item);
      // Pushed last to first, so that they are met first to last.
      for (let i = entries.length - 1; i >= 0; i--) {
        places.push({ parent: at, key: entries[i][0] });
        pending.push([entries[i][1], places.length - 1]);
      }
    }
  }
  return errors;
}
