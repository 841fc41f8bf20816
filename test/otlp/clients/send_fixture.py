"""Sends a fixture (an ExportTraceServiceRequest in OTLP JSON, test/fixtures/otlp/) to an OTLP/HTTP
receiver with the OpenTelemetry Python SDK's own exporter (opentelemetry-exporter-otlp-proto-http:
protobuf, gzip): the fixture's spans become the SDK's ReadableSpans with their own ids, times,
attributes, events and scopes, so the receiver gets what the framework's process would send.

    python send_fixture.py FIXTURE URL BEARER_TOKEN [TIMEOUT_SECONDS]

Prints one line, `accepted N spans` or `failed`, and exits 0 or 1. The exporter retries what
it may (429/502/503/504, honouring Retry-After) until TIMEOUT_SECONDS (default 10) have passed.
"""

from __future__ import annotations

import json
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace.status import Status, StatusCode


def value(any_value: dict):
    if "stringValue" in any_value:
        return any_value["stringValue"]
    if "boolValue" in any_value:
        return any_value["boolValue"]
    if "intValue" in any_value:
        return int(any_value["intValue"])
    if "doubleValue" in any_value:
        return float(any_value["doubleValue"])
    if "arrayValue" in any_value:
        return [value(item) for item in any_value["arrayValue"].get("values", [])]
    return None


def attributes(key_values: list | None) -> dict:
    return {kv["key"]: value(kv.get("value", {})) for kv in key_values or []}


def context(trace_id: str, span_id: str) -> trace.SpanContext:
    return trace.SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=trace.TraceFlags(1))


def spans(request: dict) -> list[ReadableSpan]:
    result = []
    for resource_spans in request.get("resourceSpans", []):
        resource = Resource(attributes(resource_spans.get("resource", {}).get("attributes")))
        for scope_spans in resource_spans.get("scopeSpans", []):
            scope = scope_spans.get("scope", {})
            for span in scope_spans.get("spans", []):
                status = span.get("status", {})
                parent = span.get("parentSpanId")
                result.append(
                    ReadableSpan(
                        name=span["name"],
                        context=context(span["traceId"], span["spanId"]),
                        parent=context(span["traceId"], parent) if parent else None,
                        resource=resource,
                        attributes=attributes(span.get("attributes")),
                        events=[
                            Event(event["name"], attributes(event.get("attributes")), int(event["timeUnixNano"]))
                            for event in span.get("events", [])
                        ],
                        kind=trace.SpanKind(max(span.get("kind", 1) - 1, 0)),
                        status=Status(StatusCode(status.get("code", 0)), status.get("message")),
                        start_time=int(span["startTimeUnixNano"]),
                        end_time=int(span["endTimeUnixNano"]),
                        instrumentation_scope=InstrumentationScope(scope.get("name", ""), scope.get("version")),
                    )
                )
    return result


def main() -> int:
    fixture, url, token = sys.argv[1:4]
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    with open(fixture, encoding="utf-8") as source:
        finished = spans(json.load(source))
    exporter = OTLPSpanExporter(
        endpoint=url, headers={"Authorization": f"Bearer {token}"}, compression=Compression.Gzip, timeout=timeout
    )
    result = exporter.export(finished)
    exporter.shutdown()
    ok = result == SpanExportResult.SUCCESS
    print(f"accepted {len(finished)} spans" if ok else "failed", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
