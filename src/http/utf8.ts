import { isUtf8 } from 'node:buffer';
import { badRequest } from './errors.js';

/**
 * Request text is UTF-8 (RFC 8259 for JSON, and so for CSV, JSV and query strings): bytes
 * that are not are refused, never read with U+FFFD in their place, so that nothing that was
 * sent is stored altered.
 */

/** A body's bytes as text; 400 when they are not UTF-8. */
export function utf8Body(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw badRequest('SerializationException', 'The request body is not valid UTF-8.');
  return bytes.toString('utf8');
}

const NON_LATIN1 = /[^\x00-\xff]/;

/**
 * One key or value of a query string, percent-decoded (`+` is a space), or undefined when
 * its bytes are not UTF-8. Node hands the request target over byte for byte (one character
 * per byte), so the raw bytes of a URL and its `%XX` escapes are decoded alike; text that
 * holds wider characters came from within the process and is already text.
 */
export function decodeQueryComponent(text: string): string | undefined {
  if (!/[%+\x80-\uffff]/.test(text)) return text;
  if (NON_LATIN1.test(text)) return new URLSearchParams(`v=${text}`).get('v') ?? '';
  const bytes = percentDecoded(text);
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/** The bytes of a one-byte-per-character text with its `%XX` escapes decoded; a `%` without two hex digits stays itself. */
function percentDecoded(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x25 && HEX.test(text.slice(i + 1, i + 3))) {
      bytes[n++] = Number.parseInt(text.slice(i + 1, i + 3), 16);
      i += 2;
    } else {
      bytes[n++] = code === 0x2b ? 0x20 : code;
    }
  }
  return bytes.subarray(0, n);
}
