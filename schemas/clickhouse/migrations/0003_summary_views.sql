-- Summaries QA and campaign people ask for, over the deduplicated tables.

CREATE VIEW IF NOT EXISTS {database}.test_runs AS
SELECT
    test_run_id,
    min(event_time) AS first_test_at,
    max(event_time) AS last_test_at,
    uniqExact(test_id) AS tests,
    count() AS test_conversations,
    countIf(test_success) AS passed,
    countIf(test_success = false) AS failed,
    countIf(test_success IS NULL) AS not_evaluated,
    if(countIf(test_success IS NOT NULL) = 0, NULL, countIf(test_success) / countIf(test_success IS NOT NULL)) AS pass_rate,
    sumMap(map(ifNull(test_status, ''), toUInt64(1))) AS conversations_by_test_status,
    sumMap(map(ifNull(test_completion_reason, ''), toUInt64(1))) AS conversations_by_completion_reason,
    groupUniqArray(agent_id) AS agent_ids
FROM {database}.test_results FINAL
GROUP BY test_run_id;

CREATE VIEW IF NOT EXISTS {database}.campaigns AS
SELECT
    campaign_id,
    any(campaign_name) AS campaign_name,
    min(event_time) AS first_call_at,
    max(event_time) AS last_call_at,
    uniqExact(campaign_item_id) AS campaign_items,
    count() AS calls,
    countIf(room_failed) AS failed_rooms,
    sumMap(map(ifNull(status, ''), toUInt64(1))) AS calls_by_status,
    avg(duration_seconds) AS avg_duration_seconds,
    sum(duration_seconds) AS total_duration_seconds,
    groupUniqArray(agent_id) AS agent_ids
FROM {database}.campaign_items FINAL
GROUP BY campaign_id;
