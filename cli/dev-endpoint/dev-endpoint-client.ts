import { localStateDir, readLocalSecret } from '../../core/secrets/local-secret.ts'
import type { Config } from '../../core/settings/env.ts'

// Talking to the SQL endpoint of a running `./run dev` (dev-server/sql-endpoint.ts), which owns
// the embedded data directory: `query` posts SQL to /, `prices` posts price changes to /prices.
// The token is the one `./run dev` keeps in the state directory of this checkout (VA_STATE_DIR,
// default ./data). Undefined when nobody listens (no `./run dev`); an error with the endpoint's
// message when it refuses.
export async function postToDevEndpoint(
  config: Config,
  path: string,
  body: string,
  parameters: Record<string, string> = {},
): Promise<string | undefined> {
  const url = new URL(path, `http://127.0.0.1:${config.DEV_SQL_PORT}/`)
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value)
  const token = await readLocalSecret(localStateDir(), 'sql-endpoint-token')
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      body,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    })
  } catch {
    return undefined // nobody listening: no `./run dev`
  }
  const text = await response.text()
  if (!response.ok) throw new Error(text.trim())
  return text
}
