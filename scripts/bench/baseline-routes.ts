import { readFileSync } from 'node:fs';

/** A recorded answer of the API: the baselines send exactly these bytes for the operation's route. */
export interface RecordedAnswer {
  path: string;
  status: number;
  contentType: string;
  bodyBase64: string;
}

export function loadRoutes(file: string): Array<{ path: string; status: number; contentType: string; body: Buffer }> {
  const routes = JSON.parse(readFileSync(file, 'utf8')) as RecordedAnswer[];
  return [
    ...routes.map((r) => ({ path: r.path, status: r.status, contentType: r.contentType, body: Buffer.from(r.bodyBase64, 'base64') })),
    { path: '/__ready', status: 200, contentType: 'text/plain', body: Buffer.from('ready') },
  ];
}
