import {
  DashboardBuilder,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard'
import { PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus'
import { prometheusDatasource, promql } from './grafana-queries.ts'
import { stat, table, timeseries } from './panels.ts'

// Pipeline health, from Prometheus: the ingress (webhooks in, events to Kafka), the worker
// (Kafka to ClickHouse) and the domain counters and latency histograms the worker keeps.
const webhook = 'route="/webhooks/conversation-complete"'
const quantiles = (metric: string, by: string) =>
  [0.5, 0.95, 0.99].map((q, index) =>
    promql(
      `histogram_quantile(${q}, sum by (${['le', by].filter(Boolean).join(', ')}) (rate(${metric}_bucket[$__rate_interval])))`,
      by ? `p${q * 100} {{${by}}}` : `p${q * 100}`,
      String.fromCharCode(65 + index),
    ),
  )

export function pipelineHealthDashboard() {
  return new DashboardBuilder('Pipeline health')
    .uid('voice-pipeline')
    .description('Ingress, Kafka, worker and ClickHouse writes, from Prometheus')
    .tags(['voice-analytics', 'pipeline'])
    .time({ from: 'now-3h', to: 'now' })
    .refresh('30s')
    .readonly()
    .withVariable(
      new QueryVariableBuilder('agent')
        .label('Agent')
        .datasource(prometheusDatasource)
        .query({
          qryType: 1,
          query: 'label_values(voice_e2e_latency_seconds_count, agent)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        })
        .definition('label_values(voice_e2e_latency_seconds_count, agent)')
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*')
        .current({ selected: true, text: ['All'], value: ['$__all'] }),
    )
    .withRow(new RowBuilder('Status'))
    .withPanel(
      stat('Targets up', 'Scraped ingress and worker processes that answer.', [
        promql('sum(up{job=~"ingress|worker"})', 'up'),
      ]),
    )
    .withPanel(
      stat(
        'Accepted events/s',
        'Webhook deliveries published to the event topic.',
        [promql('sum(rate(ingress_events_total{outcome="accepted"}[$__rate_interval]))', 'accepted')],
        'reqps',
      ),
    )
    .withPanel(
      stat('Consumer lag', 'Messages the workers are behind, all partitions.', [
        promql('sum(worker_consumer_lag)', 'lag'),
      ]),
    )
    .withPanel(
      stat('Dead-lettered (range)', 'Messages sent to the DLQ in the time range.', [
        promql('sum(increase(worker_dead_letter_total[$__range]))', 'dead-lettered'),
      ]),
    )
    .withPanel(
      stat('Quarantined (range)', 'ConversationComplete deliveries that misfit the schema, in range.', [
        promql('sum(increase(ingress_events_total{outcome="quarantined"}[$__range]))', 'quarantined'),
      ]),
    )
    .withPanel(
      stat(
        'Freshness p95',
        'From the ingress receiving an event to ClickHouse acknowledging its rows.',
        [
          promql(
            'histogram_quantile(0.95, sum by (le) (rate(worker_event_age_seconds_bucket[$__rate_interval])))',
            'p95',
          ),
        ],
        's',
      ),
    )
    .withPanel(
      table(
        'Alerts firing',
        'Prometheus alerts (dashboards/prometheus/rules) now pending or firing.',
        [promql('ALERTS', '{{alertname}}').instant().format(PromQueryFormat.Table)],
        24,
        6,
      ),
    )
    .withRow(new RowBuilder('Ingress'))
    .withPanel(
      timeseries(
        'Webhook requests by status',
        'Requests to the webhook route per second, by HTTP status.',
        [
          promql(
            `sum by (status) (rate(ingress_http_requests_total{${webhook}}[$__rate_interval]))`,
            '{{status}}',
          ),
        ],
        { unit: 'reqps', stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Webhook errors',
        'Share of webhook requests answered 4xx and 5xx (503: Kafka or the registry refused).',
        [
          promql(
            `sum(rate(ingress_http_requests_total{${webhook},status=~"5.."}[$__rate_interval])) / sum(rate(ingress_http_requests_total{${webhook}}[$__rate_interval]))`,
            '5xx',
          ),
          promql(
            `sum(rate(ingress_http_requests_total{${webhook},status=~"4.."}[$__rate_interval])) / sum(rate(ingress_http_requests_total{${webhook}}[$__rate_interval]))`,
            '4xx',
            'B',
          ),
        ],
        { unit: 'percentunit' },
      ),
    )
    .withPanel(
      timeseries(
        'Events by outcome',
        'accepted, quarantined (misfits the schema), other (another event kind), rejected (4xx), refused (503).',
        [promql('sum by (outcome) (rate(ingress_events_total[$__rate_interval]))', '{{outcome}}')],
        { unit: 'reqps', stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Quarantined and other-kind events',
        'Deliveries per interval that went to the quarantine or other-events topics, by reason.',
        [
          promql(
            'sum by (outcome, reason) (increase(ingress_events_total{outcome=~"quarantined|other"}[$__rate_interval]))',
            '{{outcome}} {{reason}}',
          ),
        ],
        { bars: true },
      ),
    )
    .withPanel(
      timeseries(
        'Kafka publish latency',
        'From handing an event to the producer to the Kafka acknowledgement.',
        quantiles('ingress_publish_duration_seconds', ''),
        {
          unit: 's',
        },
      ),
    )
    .withPanel(
      timeseries('Requests in flight', 'Webhook requests being handled, per ingress.', [
        promql('sum by (instance) (ingress_in_flight_requests)', '{{instance}}'),
      ]),
    )
    .withRow(new RowBuilder('OpenTelemetry in (receiver and assembler)'))
    .withPanel(
      timeseries(
        'OTLP spans by outcome',
        'Spans per second on POST /v1/traces: accepted (in Kafka, answered 200), rejected (invalid ids: partial success), refused (answered 503; the exporter retries).',
        [promql('sum by (outcome) (rate(ingress_otlp_spans_total[$__rate_interval]))', '{{outcome}}')],
        { unit: 'reqps', stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Conversations assembled',
        'Conversations the assembler produced per second, by mapping and why: root (the root span came), idle (no root within the idle time), cap (memory cap), late (a late span made a newer delivery).',
        [
          promql(
            'sum by (mapping, reason) (rate(assembler_conversations_emitted_total[$__rate_interval]))',
            '{{mapping}} {{reason}}',
          ),
        ],
        { unit: 'reqps', stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Assembly: root span to Kafka',
        "From a trace's root span arriving to its conversations acknowledged by Kafka (the root grace included; docs/otlp.md §10).",
        quantiles('assembler_emit_latency_seconds', ''),
        { unit: 's' },
      ),
    )
    .withPanel(
      timeseries(
        'Traces and spans held',
        'Traces open (gathering) and kept for late spans, and spans in memory (capped by ASSEMBLER_MAX_SPANS).',
        [
          promql('sum(assembler_traces_open)', 'open traces'),
          promql('sum(assembler_traces_kept)', 'kept traces', 'B'),
          promql('sum(assembler_spans_held)', 'spans', 'C'),
        ],
      ),
    )
    .withPanel(
      timeseries(
        'Late spans and dead letters',
        'Late spans per interval (redelivered: a newer whole conversation; dead_lettered: after the late window) and messages dead-lettered, by reason.',
        [
          promql(
            'sum by (outcome) (increase(assembler_late_spans_total[$__rate_interval]))',
            'late {{outcome}}',
          ),
          promql(
            'sum by (reason) (increase(assembler_dead_letters_total[$__rate_interval]))',
            'dead letter {{reason}}',
            'B',
          ),
        ],
        { bars: true },
      ),
    )
    .withRow(new RowBuilder('Worker'))
    .withPanel(
      timeseries('Consumer lag', 'Messages behind the high watermark after the last commit, per topic.', [
        promql('sum by (topic) (worker_consumer_lag)', '{{topic}}'),
      ]),
    )
    .withPanel(
      timeseries(
        'Messages consumed',
        'Kafka messages per second by outcome (inserted, dead_lettered).',
        [promql('sum by (outcome) (rate(worker_messages_consumed_total[$__rate_interval]))', '{{outcome}}')],
        { unit: 'reqps', stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Rows inserted',
        'Rows per second acknowledged by ClickHouse, per table.',
        [promql('sum by (table) (rate(worker_rows_inserted_total[$__rate_interval]))', '{{table}}')],
        { unit: 'rowsps' },
      ),
    )
    .withPanel(
      timeseries(
        'Insert latency p95',
        'Time of one acknowledged ClickHouse insert, per table.',
        [
          promql(
            'histogram_quantile(0.95, sum by (le, table) (rate(worker_insert_duration_seconds_bucket[$__rate_interval])))',
            '{{table}}',
          ),
        ],
        { unit: 's' },
      ),
    )
    .withPanel(
      timeseries(
        'Dead-letter queue',
        'Messages sent to the DLQ per interval, by reason.',
        [promql('sum by (reason) (increase(worker_dead_letter_total[$__rate_interval]))', '{{reason}}')],
        { bars: true },
      ),
    )
    .withPanel(
      timeseries(
        'Freshness',
        'Event age when its rows are acknowledged (webhook accepted -> queryable).',
        quantiles('worker_event_age_seconds', ''),
        {
          unit: 's',
        },
      ),
    )
    .withPanel(
      timeseries(
        'Retries',
        'Retried operations per interval (clickhouse_insert, schema_registry, dead_letter_publish).',
        [promql('sum by (operation) (increase(worker_retries_total[$__rate_interval]))', '{{operation}}')],
        { bars: true },
      ),
    )
    .withPanel(
      timeseries(
        'ClickHouse failing and batches in flight',
        '1 while inserts fail and consumption is paused; partition batches not yet committed.',
        [
          promql('max by (instance) (worker_clickhouse_failing)', 'failing {{instance}}'),
          promql('sum by (instance) (worker_batches_in_flight)', 'in flight {{instance}}', 'B'),
        ],
      ),
    )
    .withRow(new RowBuilder('Conversations (counted once each)'))
    .withPanel(
      timeseries(
        'Conversations by status',
        'Stored conversations per second, by platform status.',
        [promql('sum by (status) (rate(voice_conversations_total[$__rate_interval]))', '{{status}}')],
        { unit: 'reqps', stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Failed rooms by agent',
        'Conversations whose room failed, per interval and agent.',
        [
          promql(
            'sum by (agent) (increase(voice_failed_rooms_total{agent=~"$agent"}[$__rate_interval]))',
            '{{agent}}',
          ),
        ],
        { bars: true },
      ),
    )
    .withPanel(
      timeseries(
        'End-to-end latency p95 by agent',
        "From the worker's latency histograms (seconds buckets).",
        [
          promql(
            'histogram_quantile(0.95, sum by (le, agent) (rate(voice_e2e_latency_seconds_bucket{agent=~"$agent"}[$__rate_interval])))',
            '{{agent}}',
          ),
        ],
        { unit: 's' },
      ),
    )
    .withPanel(
      timeseries(
        'LLM TTFT and TTS TTFB p95 by agent',
        'LLM time to first token and TTS time to first byte, p95.',
        [
          promql(
            'histogram_quantile(0.95, sum by (le, agent) (rate(voice_llm_node_ttft_seconds_bucket{agent=~"$agent"}[$__rate_interval])))',
            'llm {{agent}}',
          ),
          promql(
            'histogram_quantile(0.95, sum by (le, agent) (rate(voice_tts_node_ttfb_seconds_bucket{agent=~"$agent"}[$__rate_interval])))',
            'tts {{agent}}',
            'B',
          ),
        ],
        { unit: 's' },
      ),
    )
    .withPanel(
      timeseries(
        'Test results',
        'Automated test conversations per interval by success.',
        [promql('sum by (success) (increase(voice_test_results_total[$__rate_interval]))', '{{success}}')],
        { bars: true, stacked: true },
      ),
    )
    .withPanel(
      timeseries(
        'Campaign calls',
        'Campaign conversations per interval by status.',
        [
          promql(
            'sum by (status) (increase(voice_campaign_conversations_total[$__rate_interval]))',
            '{{status}}',
          ),
        ],
        { bars: true, stacked: true },
      ),
    )
}
