// tests/node/otlp_receiver.js — a loopback OTLP/HTTP traces receiver for the span tests: each
// POST /v1/traces body is decoded with @opentelemetry/otlp-transformer's generated protobuf
// (protobufjs, not scry's code) and printed as one JSON line per span on stdout:
//   {"traceId": hex, "spanId": hex, "parentSpanId": hex, "name", "start": ns, "end": ns,
//    "attributes": {k: v}, "resource": {k: v}, "headers": {...}}
// Usage: node otlp_receiver.js PORT [FAIL_FIRST]  (the first FAIL_FIRST requests get 503)
"use strict";
const http = require("http");
const root = require("@opentelemetry/otlp-transformer/build/src/generated/root");

const Req = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const Resp = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
const port = parseInt(process.argv[2], 10);
let failFirst = parseInt(process.argv[3] || "0", 10);

const hex = (b) => Buffer.from(b || []).toString("hex");
function value(v) {
  if (v.stringValue !== undefined && v.stringValue !== null && v.stringValue !== "") return v.stringValue;
  if (v.intValue !== undefined && v.intValue !== null) return v.intValue.toString();
  if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue;
  if (v.doubleValue !== undefined && v.doubleValue !== null) return v.doubleValue;
  return v.stringValue;
}
function attrs(list) {
  const o = {};
  for (const a of list || []) o[a.key] = value(a.value || {});
  return o;
}

http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (req.method !== "POST" || req.url !== "/v1/traces") {
      res.writeHead(404); res.end(); return;
    }
    if (failFirst > 0) {
      failFirst--;
      console.log(JSON.stringify({ refused: true }));
      res.writeHead(503); res.end(); return;
    }
    let msg;
    try {
      msg = Req.decode(Buffer.concat(chunks));
    } catch (e) {
      console.log(JSON.stringify({ error: String(e) }));
      res.writeHead(400); res.end(); return;
    }
    for (const rs of msg.resourceSpans) {
      const resource = attrs(rs.resource && rs.resource.attributes);
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          console.log(JSON.stringify({
            traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId),
            name: s.name, kind: s.kind, start: s.startTimeUnixNano.toString(), end: s.endTimeUnixNano.toString(),
            attributes: attrs(s.attributes), resource, scope: ss.scope ? ss.scope.name : "",
            contentType: req.headers["content-type"], auth: req.headers["x-test-auth"] || "",
          }));
        }
      }
    }
    const body = Resp.encode(Resp.create({})).finish();
    res.writeHead(200, { "Content-Type": "application/x-protobuf" });
    res.end(Buffer.from(body));
  });
}).listen(port, "127.0.0.1", () => console.log(JSON.stringify({ listening: port })));
