import { z } from 'zod'
import { withoutQuery } from '../../core/runtime/logger.ts'
import { readTextIfExists, writePrivateFileAtomic } from '../../core/secrets/private-file.ts'
import { withFileLock } from '../config/file-lock.ts'

// The local record of the webhooks registered from this machine, per environment. The URL is kept
// without its query: the ingress token travels there.

const recordSchema = z.object({
  id: z.string(),
  url: z.string(),
  source: z.string().optional(),
  registered_at: z.string(),
})
export type WebhookRecord = z.infer<typeof recordSchema>

export async function readWebhookRecords(file: string): Promise<WebhookRecord[]> {
  const text = await readTextIfExists(file)
  if (text === undefined) return []
  const parsed = z.array(recordSchema).safeParse(JSON.parse(text))
  if (!parsed.success)
    throw new Error(`the webhook records file ${file} is damaged; move it away to start a new one`)
  return parsed.data
}

export async function addWebhookRecord(
  file: string,
  entry: { id: string; url: string; source?: string; registeredAt: Date },
): Promise<WebhookRecord> {
  const record: WebhookRecord = {
    id: entry.id,
    url: withoutQuery(entry.url),
    ...(entry.source ? { source: entry.source } : {}),
    registered_at: entry.registeredAt.toISOString(),
  }
  // Locked: two registrations at once must not drop each other's record.
  await withFileLock(`${file}.lock`, async () => {
    const records = (await readWebhookRecords(file)).filter((known) => known.id !== record.id)
    await writePrivateFileAtomic(file, `${JSON.stringify([...records, record], null, 2)}\n`)
  })
  return record
}
