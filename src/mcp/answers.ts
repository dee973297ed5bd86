import { randomUUID } from 'node:crypto';

/**
 * The operations' answers in a request's tool results (docs/decisions.md, "The MCP server").
 * A result's text is the operation's JSON text and its structured content that JSON's value:
 * rather than parse the text for the SDK to write it out again (and to check, and to stream
 * through a web Response, twice over), the SDK is given a placeholder for each, and the
 * route puts the answer in their place in the JSON-RPC message the SDK wrote: the text as a
 * JSON string, and the JSON itself, as it came, for the structured content.
 *
 * A placeholder holds this process's random key, which nothing a client sends can know, and
 * is written by the SDK as JSON writes it: a string (`"<key>:text:<n>"`), and an object with
 * one member (`{"<key>":<n>}`). A JSON string never holds an unescaped `"`, so neither can
 * appear inside another value of the message.
 */

const KEY = randomUUID();

export class Answers {
  private readonly texts: string[] = [];

  /** What a result carries for an answer: its text, and its structured content when the text is a JSON object. */
  hold(text: string, object: boolean): { text: string; structuredContent?: Record<string, unknown> } {
    const n = this.texts.push(text) - 1;
    return { text: `${KEY}:text:${n}`, ...(object ? { structuredContent: { [KEY]: n } } : {}) };
  }

  /** The message the SDK wrote, with each answer in the place of its placeholders. */
  fill(message: string): string {
    let out = message;
    this.texts.forEach((text, n) => {
      out = replaceOnce(out, `"${KEY}:text:${n}"`, () => JSON.stringify(text));
      out = replaceOnce(out, `{"${KEY}":${n}}`, () => text);
    });
    return out;
  }
}

function replaceOnce(message: string, placeholder: string, value: () => string): string {
  const at = message.indexOf(placeholder);
  return at === -1 ? message : message.slice(0, at) + value() + message.slice(at + placeholder.length);
}
