import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { parsePriceCsv } from '../../core/pricing/price-csv.ts'
import {
  type Direction,
  type PriceComponent,
  type PriceRow,
  type PriceUnit,
  parsePriceTime,
} from '../../core/pricing/price-row.ts'
import type { PriceChange } from '../../core/pricing/price-rules.ts'
import { addPrices } from '../../core/pricing/price-store.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { runQueryRouted, writeRouted } from '../dev-endpoint/clickhouse-route.ts'
import { queryOutputFormat } from '../query/output-format.ts'

// `prices set|list|import`: the prices the cost view (voice_analytics.conversation_costs) computes
// each call's cost from, with their effective dates (docs/costs.md). Changes are checked against
// what is stored (duplicates, overlaps, one currency) and refused whole with every problem named;
// with `./run dev` running they go through its endpoint, which holds the embedded data directory.

async function storePrices(changes: PriceChange[]): Promise<void> {
  const config = loadConfig()
  const answer = await writeRouted(config, '/prices', JSON.stringify({ changes }), async (client) =>
    JSON.stringify({ added: await addPrices(client, config.CLICKHOUSE_DATABASE, changes) }),
  )
  const { added } = JSON.parse(answer) as { added: number }
  process.stdout.write(`${added} price(s) stored; costs use them from their valid_from on\n`)
}

interface SetOptions {
  component: string
  provider?: string
  direction?: string
  agent?: string
  unit: string
  price: string
  currency: string
  from: string
  to?: string
  note?: string
}

export function registerPricesCommand(program: Command): void {
  const prices = program
    .command('prices')
    .description('prices with effective dates, from which each call is costed at query time (docs/costs.md)')

  prices
    .command('list')
    .description('the stored prices, each with the end of its validity')
    .option('--format <format>', 'ClickHouse output format; default: PrettyCompact on a terminal')
    .action(async (options: { format?: string }) => {
      const config = loadConfig()
      const text = await runQueryRouted(config, {
        sql: `SELECT component, telecom_provider, direction, agent_id, unit, price, currency, valid_from,
            coalesce(valid_to, leadInFrame(toNullable(valid_from)) OVER (PARTITION BY component, telecom_provider,
              direction, agent_id ORDER BY valid_from ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING)) AS valid_until,
            note
          FROM ${config.CLICKHOUSE_DATABASE}.prices
          ORDER BY component, telecom_provider, direction, agent_id, valid_from`,
        format: queryOutputFormat(options.format, process.stdout.isTTY === true),
        final: true,
      })
      process.stdout.write(text)
    })

  prices
    .command('set')
    .description('add one price, valid from --from (a price change: a later price of the same key)')
    .requiredOption('--component <component>', 'telephony, stt, tts, llm or call_fee')
    .option('--provider <telecom_provider>', 'telephony: the telecom provider, as the platform names it')
    .option('--direction <direction>', 'telephony: inbound or outbound (default: either)')
    .option('--agent <agent_id>', 'stt, tts, llm, call_fee: the agent (default: every agent)')
    .requiredOption(
      '--unit <unit>',
      'minute (telephony: per started minute; others: by the second), turn or call',
    )
    .requiredOption('--price <price>', 'per unit, a decimal with at most 6 fraction digits')
    .requiredOption('--currency <currency>', 'three-letter code; one currency for all prices')
    .requiredOption('--from <time>', 'valid from: a date (midnight UTC) or an ISO 8601 date-time with a zone')
    .option('--to <time>', 'valid until (exclusive); default: until the next price of the same key')
    .option('--note <note>', 'free text, e.g. the contract it comes from')
    .action(async (options: SetOptions) => {
      const row: PriceRow = {
        component: options.component as PriceComponent,
        telecom_provider: options.provider ?? '',
        direction: (options.direction ?? '') as Direction,
        agent_id: options.agent ?? '',
        unit: options.unit as PriceUnit,
        price: options.price,
        currency: options.currency,
        valid_from: parsePriceTime(options.from, '--from'),
        valid_to: options.to === undefined ? undefined : parsePriceTime(options.to, '--to'),
        note: options.note ?? '',
      }
      await storePrices([{ row, origin: 'the new price' }])
    })

  prices
    .command('import')
    .description('add the prices of a CSV file (format: docs/costs.md; example: docs/prices.example.csv)')
    .argument('<file>', 'the price file')
    .action(async (file: string) => {
      await storePrices(parsePriceCsv(readFileSync(file, 'utf8')))
    })
}
