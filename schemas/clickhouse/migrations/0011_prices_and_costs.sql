-- What each call costs (#25). Prices are data with effective dates, never folded into stored rows:
-- the cost of a conversation is computed when it is read, from the prices valid at its event_time,
-- so a price change needs no re-ingest. Written by `voice-analytics prices set|import`, which refuses
-- duplicate and overlapping validity (services/core/pricing/price-rules.ts); the rules of what a
-- call costs are in docs/costs.md, and services/core/pricing/conversation-cost.ts computes the same
-- in TypeScript (the tests hold the two to the cent).
--
-- One row per price component and key:
--   telephony  per started minute, by telecom_provider and direction ('' = either direction)
--   stt, tts, llm  per minute (per second of duration) or per turn, by agent_id ('' = every agent)
--   call_fee   per call, by agent_id ('' = every agent)
-- A row is valid from valid_from until valid_to, or, when valid_to is NULL, until the next row of
-- the same key starts.

CREATE TABLE IF NOT EXISTS {database}.prices
(
    component LowCardinality(String) COMMENT 'telephony, stt, tts, llm or call_fee',
    telecom_provider LowCardinality(String) COMMENT 'telephony only: the provider as the platform names it',
    direction LowCardinality(String) COMMENT 'telephony only: inbound, outbound or empty for either',
    agent_id LowCardinality(String) COMMENT 'stt, tts, llm, call_fee: the agent, or empty for every agent',
    unit LowCardinality(String) COMMENT 'minute, turn or call',
    price Decimal(18, 6) COMMENT 'per unit, in currency',
    currency LowCardinality(String),
    valid_from DateTime64(3, 'UTC'),
    valid_to Nullable(DateTime64(3, 'UTC')) COMMENT 'exclusive; NULL: until the next price of the key',
    note String,
    created_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(created_at)
ORDER BY (component, telecom_provider, direction, agent_id, valid_from);

-- The prices as a range dictionary, keyed by a hash of the table's key (a UInt64 key: lookups with
-- a tuple of strings as the key measured ~10x slower), each row with the end of its validity
-- (valid_to, else the next valid_from of its key) less a millisecond: the dictionary's ranges include
-- their end, a price's validity does not (a call at the very start of a price change takes the new
-- price; test/cost). Chosen over ASOF JOINs by measurement
-- (bench/results/cost.md). Reloaded by the CLI after every change, and every minute or two for
-- rows written by other means.
CREATE DICTIONARY IF NOT EXISTS {database}.price_lookup
(
    price_key UInt64,
    price Float64,
    per_turn UInt8,
    valid_from DateTime64(3, 'UTC'),
    valid_until Nullable(DateTime64(3, 'UTC'))
)
PRIMARY KEY price_key
SOURCE(CLICKHOUSE(QUERY 'SELECT cityHash64(component, telecom_provider, direction, agent_id) AS price_key, toFloat64(price) AS price, toUInt8(unit = ''turn'') AS per_turn, valid_from, coalesce(valid_to, leadInFrame(toNullable(valid_from)) OVER (PARTITION BY component, telecom_provider, direction, agent_id ORDER BY valid_from ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING)) - toIntervalMillisecond(1) AS valid_until FROM {database}.prices FINAL'))
LIFETIME(MIN 60 MAX 120)
LAYOUT(RANGE_HASHED())
RANGE(MIN valid_from MAX valid_until);

-- Each conversation's cost and its breakdown. A component that applies and has no price valid at
-- the call's time makes the call unpriced: cost NULL, the component named in unpriced_components,
-- never a zero. Telephony applies to phone calls (telecom_provider set): outbound for campaign
-- calls, inbound otherwise, billed per started minute; the others apply to every conversation.
-- Numbers-only lookups: the specific price (direction, agent), where any exists, then the general
-- one. The cost needs no array or string per row (they measured slower): unpriced_components is
-- worked out only when a query asks for it.
CREATE VIEW IF NOT EXISTS {database}.conversation_costs AS
WITH
    '{database}.price_lookup' AS lookup,
    ('price', 'per_turn') AS attributes,
    telecom_provider IS NOT NULL AS phone_call,
    if(campaign_id IS NOT NULL, 'outbound', 'inbound') AS call_direction,
    ifNull(duration_seconds, 0) AS seconds,
    cityHash64('telephony', ifNull(telecom_provider, ''), call_direction, '') AS telephony_directed_key,
    cityHash64('telephony', ifNull(telecom_provider, ''), '', '') AS telephony_either_key,
    -- The components some price is specific for (an agent, a direction): only they need the
    -- specific lookup before the general one (a third less time over a million calls).
    (SELECT groupUniqArray(component) FROM {database}.prices WHERE agent_id != '' OR direction != '') AS specific_components,
    if(has(specific_components, 'telephony'),
        coalesce(
            dictGetOrNull(lookup, 'price', telephony_directed_key, event_time),
            dictGetOrNull(lookup, 'price', telephony_either_key, event_time)),
        dictGetOrNull(lookup, 'price', telephony_either_key, event_time)) AS telephony_price,
    dictGetOrNull(lookup, attributes, cityHash64('stt', '', '', agent_id), event_time) AS stt_agent,
    if(has(specific_components, 'stt') AND isNotNull(stt_agent.price),
        stt_agent, dictGetOrNull(lookup, attributes, cityHash64('stt', '', '', ''), event_time)) AS stt,
    dictGetOrNull(lookup, attributes, cityHash64('tts', '', '', agent_id), event_time) AS tts_agent,
    if(has(specific_components, 'tts') AND isNotNull(tts_agent.price),
        tts_agent, dictGetOrNull(lookup, attributes, cityHash64('tts', '', '', ''), event_time)) AS tts,
    dictGetOrNull(lookup, attributes, cityHash64('llm', '', '', agent_id), event_time) AS llm_agent,
    if(has(specific_components, 'llm') AND isNotNull(llm_agent.price),
        llm_agent, dictGetOrNull(lookup, attributes, cityHash64('llm', '', '', ''), event_time)) AS llm,
    if(has(specific_components, 'call_fee'),
        coalesce(
            dictGetOrNull(lookup, 'price', cityHash64('call_fee', '', '', agent_id), event_time),
            dictGetOrNull(lookup, 'price', cityHash64('call_fee', '', '', ''), event_time)),
        dictGetOrNull(lookup, 'price', cityHash64('call_fee', '', '', ''), event_time)) AS call_fee_price,
    -- quantities: per started minute (telephony), by the second (other minute prices), per turn
    ceil(seconds / 60) AS telephony_minutes,
    seconds / 60 AS minutes,
    round(if(phone_call, telephony_price * telephony_minutes, 0), 6) AS telephony_amount,
    round(stt.price * if(stt.per_turn = 1, user_turn_count, minutes), 6) AS stt_amount,
    round(tts.price * if(tts.per_turn = 1, agent_turn_count, minutes), 6) AS tts_amount,
    round(llm.price * if(llm.per_turn = 1, agent_turn_count, minutes), 6) AS llm_amount,
    round(call_fee_price, 6) AS call_fee_amount,
    duration_seconds IS NULL OR (phone_call AND telephony_price IS NULL) OR stt.price IS NULL
        OR tts.price IS NULL OR llm.price IS NULL OR call_fee_price IS NULL AS is_unpriced
SELECT
    session_id,
    event_time,
    source,
    agent_id,
    agent_name,
    campaign_id,
    campaign_name,
    campaign_item_id,
    telecom_provider,
    if(phone_call, call_direction, NULL) AS direction,
    test_run_id,
    test_id,
    test_success,
    status,
    room_failed,
    error_message,
    duration_seconds,
    user_turn_count,
    agent_turn_count,
    toUInt32(if(phone_call, telephony_minutes, 0)) AS billed_telephony_minutes,
    telephony_amount AS telephony_cost,
    stt_amount AS stt_cost,
    tts_amount AS tts_cost,
    llm_amount AS llm_cost,
    call_fee_amount AS call_fee,
    if(is_unpriced, NULL, round(telephony_amount + stt_amount + tts_amount + llm_amount + call_fee_amount, 6)) AS cost,
    toBool(is_unpriced) AS unpriced,
    arrayFilter(component -> component != '', [
        if(duration_seconds IS NULL, 'duration', ''),
        if(phone_call AND telephony_price IS NULL, 'telephony', ''),
        if(stt.price IS NULL, 'stt', ''),
        if(tts.price IS NULL, 'tts', ''),
        if(llm.price IS NULL, 'llm', ''),
        if(call_fee_price IS NULL, 'call_fee', '')]) AS unpriced_components,
    -- One currency for every price (price-rules.ts), so the table's is each call's.
    (SELECT any(currency) FROM {database}.prices) AS currency
FROM {database}.conversations FINAL
