"""Where the framework clients send their spans: the OpenTelemetry SDK's own OTLP/HTTP exporter
(to the receiver, when OTLP_TRACES_ENDPOINT is set) and a file in the OTLP/HTTP JSON encoding
(an ExportTraceServiceRequest, the body a JSON-encoding exporter would POST), which is how the
fixtures in test/fixtures/otlp/ were captured.

The JSON is made by the SDK's own protobuf encoder (opentelemetry-exporter-otlp-proto-common),
then mapped to JSON as the OTLP specification says: lowerCamelCase keys, 64-bit integers as
decimal strings, enums as integers, and traceId/spanId/parentSpanId as hex (not the base64 of
the standard protobuf JSON mapping).
"""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Sequence

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _hex_ids(node: object) -> object:
    if isinstance(node, dict):
        return {
            key: base64.b64decode(value).hex() if key in _ID_KEYS and isinstance(value, str) else _hex_ids(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(value) for value in node]
    return node


def otlp_json(spans: Sequence[ReadableSpan]) -> dict:
    """The ExportTraceServiceRequest for `spans`, in the OTLP/HTTP JSON encoding."""
    request = encode_spans(spans)
    return _hex_ids(MessageToDict(request, use_integers_for_enums=True))  # type: ignore[return-value]


class CollectingExporter(SpanExporter):
    """Keeps every finished span; `write` saves them as one ExportTraceServiceRequest."""

    def __init__(self) -> None:
        self._spans: list[ReadableSpan] = []
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._lock:
            self._spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    @property
    def spans(self) -> list[ReadableSpan]:
        with self._lock:
            return sorted(self._spans, key=lambda span: (span.start_time or 0, span.name))

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(otlp_json(self.spans), out, indent=2, ensure_ascii=False)
            out.write("\n")


def tracer_provider(
    service_name: str, collector: CollectingExporter, framework_version: str | None = None
) -> TracerProvider:
    """A TracerProvider that collects every span, and also exports it with the SDK's OTLP/HTTP
    protobuf exporter when OTLP_TRACES_ENDPOINT is set (OTLP_BEARER_TOKEN becomes the
    Authorization header; the exporter gzips, as OTEL_EXPORTER_OTLP_COMPRESSION=gzip asks), or its
    JSON exporter with OTLP_ENCODING=json. `framework_version` goes in the resource attribute
    voice.framework.version, where the assembler looks for it (neither framework sends its own)."""
    attributes = {"service.name": service_name}
    if framework_version:
        attributes["voice.framework.version"] = framework_version
    provider = TracerProvider(resource=Resource.create(attributes))
    provider.add_span_processor(SimpleSpanProcessor(collector))
    endpoint = os.environ.get("OTLP_TRACES_ENDPOINT")
    if endpoint:
        if os.environ.get("OTLP_ENCODING") == "json":  # opentelemetry-exporter-otlp-json-http (beta)
            from opentelemetry.exporter.otlp.common.http import Compression
            from opentelemetry.exporter.otlp.json.http.trace_exporter import OTLPSpanExporter

            gzip = Compression.GZIP
        else:
            from opentelemetry.exporter.otlp.proto.http import Compression
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            gzip = Compression.Gzip

        token = os.environ.get("OTLP_BEARER_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else None
        provider.add_span_processor(
            BatchSpanProcessor(
                OTLPSpanExporter(endpoint=endpoint, headers=headers, compression=gzip)
            )
        )
    return provider


def flush_and_write(provider: TracerProvider, collector: CollectingExporter, out_path: str) -> None:
    """Exports what is left, writes the spans to `out_path` and prints how many and their names."""
    provider.force_flush()
    provider.shutdown()
    collector.write(out_path)
    names = [span.name for span in collector.spans]
    print(f"{len(names)} spans: " + json.dumps(sorted(set(names))), flush=True)
