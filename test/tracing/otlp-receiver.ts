import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP receiver on 127.0.0.1, as a collector would run one: it takes the spans a
 * server exports with OTEL_EXPORTER_OTLP_PROTOCOL=http/json (POST /v1/traces) and keeps
 * them, flattened, for the test to look at; protobuf bodies it keeps as they came, and
 * anything sent to another path as `other`.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's numbers: 2 SERVER, 3 CLIENT */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
  /** the resource's attributes */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for OTEL_EXPORTER_OTLP_ENDPOINT */
  endpoint: string;
  spans: ReceivedSpan[];
  /** every body received, as it came: nothing of a request may be in any of them */
  raw: string[];
  /** requests to other paths than /v1/traces */
  other: string[];
  /** bodies sent with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, undecoded (their strings are legible) */
  protobuf: string[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = Array<{ key: string; value: OtlpValue }> | undefined;

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? v.arrayValue?.values?.map(valueOf);

const attributesOf = (list: OtlpAttributes) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

export async function startOtlpReceiver(t: { teardown(fn: () => unknown): void }): Promise<OtlpReceiver> {
  const received: OtlpReceiver = { endpoint: '', spans: [], raw: [], other: [], protobuf: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.raw.push(body);
      if (req.url !== '/v1/traces') received.other.push(String(req.url));
      else if (req.headers['content-type'] !== 'application/json') received.protobuf.push(body);
      else {
        for (const rs of JSON.parse(body).resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              received.spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
                status: s.status,
                resource,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  received.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return received;
}
