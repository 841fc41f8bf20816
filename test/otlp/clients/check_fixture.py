"""Checks that a fixture is a valid ExportTraceServiceRequest in the OTLP/HTTP JSON encoding, and
optionally sends it, re-encoded as protobuf, the way the SDK's OTLP/HTTP exporter would.

It parses the JSON with the opentelemetry-proto messages the Python exporter itself uses (ids
turned from hex back into the bytes protobuf wants, unknown fields refused) and prints, per trace,
the span tree with each span's attribute keys: the quickest way to see what a fixture holds.

    python check_fixture.py ../../fixtures/otlp/livekit-1.x-conversation.json
    python check_fixture.py FIXTURE --send http://127.0.0.1:8080/v1/traces --token SECRET
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import urllib.request
from collections import defaultdict

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _base64_ids(node: object) -> object:
    if isinstance(node, dict):
        return {
            key: base64.b64encode(bytes.fromhex(value)).decode() if key in _ID_KEYS and value else _base64_ids(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_base64_ids(value) for value in node]
    return node


def load(path: str) -> ExportTraceServiceRequest:
    with open(path, encoding="utf-8") as f:
        body = json.load(f)
    return ParseDict(_base64_ids(body), ExportTraceServiceRequest())


def print_tree(request: ExportTraceServiceRequest) -> None:
    spans = [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
    children = defaultdict(list)
    ids = {span.span_id for span in spans}
    for span in sorted(spans, key=lambda s: s.start_time_unix_nano):
        children[span.parent_span_id if span.parent_span_id in ids else b""].append(span)

    def show(span, depth: int) -> None:
        seconds = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e9
        keys = ", ".join(attr.key for attr in span.attributes)
        events = ", ".join(event.name for event in span.events)
        print(f"{'  ' * depth}{span.name} ({seconds:.3f} s) [{keys}]" + (f" events: {events}" if events else ""))
        for child in children[span.span_id]:
            show(child, depth + 1)

    for root in children[b""]:
        print(f"trace {root.trace_id.hex()}")
        show(root, 1)
    print(f"{len(spans)} spans")


def send(request: ExportTraceServiceRequest, url: str, token: str | None) -> None:
    headers = {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=gzip.compress(request.SerializeToString()), headers=headers)
    with urllib.request.urlopen(req) as response:
        print(response.status, response.read())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("fixture")
    parser.add_argument("--send")
    parser.add_argument("--token")
    args = parser.parse_args()
    request = load(args.fixture)
    print_tree(request)
    if args.send:
        send(request, args.send, args.token)
