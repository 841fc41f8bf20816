"""A minimal OTLP/HTTP trace sink, standing in for the receiver while it does not exist: it proves
what the real exporters send (method, path, headers, encoding) and decodes it with the
opentelemetry-proto messages. Not a receiver: no Kafka, no durability.

    python otlp_sink.py 4318 received.json     # then OTLP_TRACES_ENDPOINT=http://127.0.0.1:4318/v1/traces

Answers 200 with an empty ExportTraceServiceResponse in the request's encoding (OTLP/HTTP §"Full
Success"); writes every request received, as OTLP JSON with hex ids, to the given file (a list),
with the headers that matter.
"""

from __future__ import annotations

import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict, ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from check_fixture import _base64_ids
from otlp_export import _hex_ids

received: list[dict] = []
raw: list[dict] = []  # JSON bodies as they came


class Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self._body()
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        content_type = self.headers.get("Content-Type", "")
        request = ExportTraceServiceRequest()
        if content_type.startswith("application/json"):
            raw.append(json.loads(body))
            ParseDict(_base64_ids(raw[-1]), request)  # OTLP JSON ids are hex, protobuf JSON's base64
        else:
            request.ParseFromString(body)
        spans = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        received.append(
            {
                "path": self.path,
                "headers": {k: self.headers.get(k) for k in ("Content-Type", "Content-Encoding", "Transfer-Encoding", "Authorization", "User-Agent")},
                "spans": spans,
                "body": _hex_ids(MessageToDict(request, use_integers_for_enums=True)),
            }
        )
        with open(sys.argv[2], "w", encoding="utf-8") as out:
            json.dump(received, out, indent=2, ensure_ascii=False)
        answer = ExportTraceServiceResponse()
        payload = json.dumps(MessageToDict(answer)).encode() if content_type.startswith("application/json") else answer.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", content_type or "application/x-protobuf")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        print(f"{self.path} {content_type} {self.headers.get('Content-Encoding')} {spans} spans", flush=True)

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = b""  # the JS exporter streams its gzip body in chunks
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            body += self.rfile.read(size)
            self.rfile.readline()
        self.rfile.readline()
        return body

    def log_message(self, *args) -> None:
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
