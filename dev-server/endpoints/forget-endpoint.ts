import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { type ErasureCall, runErasureCall } from '../../core/privacy/erasure/erasure-call.ts'
import { ErasureRequestError } from '../../core/privacy/erasure/erasure-selector.ts'
import type { Config } from '../../core/settings/env.ts'
import { answerInSession, oneAtATime, type WriteAnswer } from './write-route.ts'

// POST /forget of the dev SQL endpoint: `voice-analytics forget` (and --status) while `./run dev`
// holds the embedded data directory, so that erasing one caller does not stop ingest. Behind the
// same guards as the SQL and /prices (loopback Host, no cross-site request, the token); the body is
// an ErasureCall (erasure-call.ts). Once an erasure removed conversations, the running worker is
// told their ids at once (`forgotten`), so that a re-delivery of one is not stored again.
const inTurn = oneAtATime()

export function answerForget(
  body: string,
  openSession: () => ClickHouseClient,
  config: Pick<Config, 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_CLUSTER' | 'ERASURE_HMAC_KEY' | 'PII_HMAC_KEY'>,
  forgotten: (sessionIds: readonly string[]) => void,
): Promise<WriteAnswer> {
  return inTurn(async (): Promise<WriteAnswer> => {
    let call: ErasureCall
    try {
      call = JSON.parse(body) as ErasureCall
      if (typeof call !== 'object' || call === null || !('status' in call || 'selector' in call))
        throw new Error('not a call')
    } catch {
      return {
        status: 400,
        text: 'POST {"status": true} or {"selector": {...}, "dryRun": ..., "command": ...} as voice-analytics forget sends it',
      }
    }
    return answerInSession(
      openSession,
      async (session) => {
        const answer = await runErasureCall(session, config, call)
        if (
          'report' in answer &&
          answer.report.erasureId !== undefined &&
          answer.report.sessionIds.length > 0
        )
          forgotten(answer.report.sessionIds)
        return answer
      },
      (error) => error instanceof ErasureRequestError,
    )
  })
}
